package regularfile

import (
	"io/fs"
	"os"
)

// openBeneath opens through an os.Root, which refuses any link or junction that leads outside root.
func openBeneath(root, rel, path string) (*os.File, fs.FileInfo, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return check(f, path)
}
