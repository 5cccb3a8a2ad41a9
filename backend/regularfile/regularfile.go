// Package regularfile opens files for reading only when they are regular files, checked on the opened descriptor, so a file swapped for a link, a pipe or a device between a scan and the read is refused instead of read.
package regularfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is returned for a path that is not a regular file: a named pipe, a device, a socket, a directory or
// (with Open) a symbolic link.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError names what a refused path is instead.
type NotRegularError struct {
	Path string
	What string // "a named pipe (FIFO)", "a device", "a symbolic link", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s)", e.Path, e.What)
}

func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// Open opens path for reading if it is a regular file, without following a symbolic link in its last component
// (a file found by walking a folder, which a link swapped in must not redirect) and without blocking on a named pipe.
// The check is made on the opened descriptor, so what is read is what was checked. A link in a directory above the
// file is followed: OpenBeneath is the one for a file found under a known folder.
func Open(path string) (*os.File, fs.FileInfo, error) { return open(path, false) }

// OpenFollow is Open for a path a person named: a symbolic link is followed to its target, which must be a
// regular file.
func OpenFollow(path string) (*os.File, fs.FileInfo, error) { return open(path, true) }

// check returns f with its info when the opened descriptor is a regular file, and closes it otherwise.
func check(f *os.File, path string) (*os.File, fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, What: describe(st.Mode())}
	}
	return f, st, nil
}

// describe names a non-regular file mode in words.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "an irregular file"
}
