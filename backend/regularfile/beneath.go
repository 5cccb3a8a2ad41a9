package regularfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// OpenBeneath is Open for a file found by walking the folder root: root itself may be a link (a person chose it),
// but no component below it is followed, so a folder swapped for a link between a scan and the read cannot lead
// the read outside the folder.
func OpenBeneath(root, path string) (*os.File, fs.FileInfo, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, nil, fmt.Errorf("%s: not inside %s", path, root)
	}
	return openBeneath(root, rel, path)
}

// linkAbove is the refusal for a path that passes through a symbolic link below the walked folder.
func linkAbove(path, dir string) error {
	return &NotRegularError{Path: path, What: "reached through the symbolic link " + dir}
}
