// Package atomicfile writes a file whole or not at all.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// NameMax is the longest file name, in bytes, that the file systems Proofglass runs on accept (NAME_MAX on Linux and
// macOS; Windows counts 255 UTF-16 units, never more than the UTF-8 bytes).
const NameMax = 255

// tempPattern is the temp file's name pattern for a file named base: ".{base}.tmp-{random}", with base cut (at a
// character boundary) so the whole fits NameMax. os.CreateTemp's random part is at most 10 digits. Without the cut a
// file whose own name fits but is long (a page of a document with a 240-byte name) could never be written.
func tempPattern(base string) string {
	const extra = len(".") + len(".tmp-") + 10
	if len(base)+extra > NameMax {
		cut := NameMax - extra
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return "." + base + ".tmp-*"
}

// Write writes data to path so that readers see the old content or the new, never a torn file, and a crash leaves
// one of them: a temp file in the same directory, fsynced, renamed over path, then the directory fsynced.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteWith(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteWith is Write for content that fill writes into the temp file f (it may seek and WriteAt; the file is closed
// after it returns). When fill fails, path is left as it was.
func WriteWith(path string, perm os.FileMode, fill func(f *os.File) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPattern(filepath.Base(path)))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: makes the rename durable on Linux
		d.Close()
	}
	return nil
}
