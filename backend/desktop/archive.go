package desktop

import (
	"fmt"
	"os"
	"path/filepath"

	"proofglass/backend/archive"
	"proofglass/backend/atomicfile"
	"proofglass/backend/regularfile"
)

// archiveExt is the extension of the library archives the window writes and offers to open.
const archiveExt = ".zip"

// ChooseArchivePath opens the save dialog for a library archive (titled in the window's language, defaultName
// suggested) and returns the path chosen, "" when cancelled. Only that path can then be written by
// ExportCollections, once.
func (s *LibraryService) ChooseArchivePath(title, defaultName string) (string, error) {
	if err := checkName("file name", defaultName); err != nil {
		return "", err
	}
	ui := s.c.window()
	if ui == nil {
		return "", errNoWindow
	}
	if defaultName == "" || filepath.Base(defaultName) != defaultName {
		defaultName = "library" + archiveExt
	}
	path, err := ui.SaveFile(dialogTitle(title, "Export collections"), defaultName)
	if err != nil || path == "" {
		s.archives.Choose("")
		return "", err
	}
	s.archives.Choose(path)
	return path, nil
}

// ExportCollections writes the named collections as one library archive to path, which must be the path the last
// ChooseArchivePath returned (once).
func (s *LibraryService) ExportCollections(path string, collections []string) (*archive.ExportReport, error) {
	c := s.c
	if len(collections) == 0 || len(collections) > maxPaths {
		return nil, fmt.Errorf("export: choose between 1 and %d collections", maxPaths)
	}
	for _, name := range collections {
		if err := checkName("collection", name); err != nil {
			return nil, err
		}
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	if err := s.archives.Claim(path); err != nil {
		return nil, err
	}
	var rep *archive.ExportReport
	err := atomicfile.WriteWith(path, 0o600, func(f *os.File) error {
		var err error
		rep, err = c.lib.Export(c.ctx, collections, false, f)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// ImportArchive opens the system dialog for a library archive (titled in the window's language) and imports the one
// chosen, each collection under its own name or all into into ("" = their own); nil when the dialog was cancelled.
func (s *LibraryService) ImportArchive(title, into string) (*archive.ImportReport, error) {
	c := s.c
	if err := checkName("collection", into); err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	ui := c.window()
	if ui == nil {
		return nil, errNoWindow
	}
	path, err := ui.OpenFile(dialogTitle(title, "Import a library archive"),
		[]FileFilter{{DisplayName: "Proofglass library archive (*.zip)", Pattern: "*" + archiveExt}})
	if err != nil || path == "" {
		return nil, err
	}
	f, info, err := regularfile.OpenFollow(path)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	defer f.Close()
	rep, err := c.lib.Import(c.ctx, f, info.Size(), archive.ImportRequest{Into: into})
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	return rep, nil
}
