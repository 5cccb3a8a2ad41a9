//go:build !unix && !windows

package regularfile

import (
	"io/fs"
	"os"
)

func open(path string, _ bool) (*os.File, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return check(f, path)
}
