//go:build unix

package regularfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

func open(path string, follow bool) (*os.File, fs.FileInfo, error) {
	// O_NONBLOCK: opening a named pipe for reading would otherwise wait for a writer, for ever. It does not change
	// how a regular file reads.
	flags := syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		if !follow && errors.Is(err, syscall.ELOOP) {
			return nil, nil, &NotRegularError{Path: path, What: "a symbolic link"}
		}
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return checkFD(fd, path)
}

// checkFD wraps a descriptor opened with O_NONBLOCK, keeps it only if it is a regular file, and makes it blocking
// again: regular files ignore O_NONBLOCK, but reads through the runtime poller should see a plain blocking file.
func checkFD(fd int, path string) (*os.File, fs.FileInfo, error) {
	f := os.NewFile(uintptr(fd), path)
	if f == nil {
		syscall.Close(fd)
		return nil, nil, fmt.Errorf("open %s: bad descriptor", path)
	}
	f, st, err := check(f, path)
	if err != nil {
		return nil, nil, err
	}
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, st, nil
}
