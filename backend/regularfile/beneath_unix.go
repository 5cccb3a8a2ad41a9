//go:build unix

package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

func openBeneath(root, rel, path string) (*os.File, fs.FileInfo, error) {
	dir, err := openat(unix.AT_FDCWD, root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i, name := range parts[:len(parts)-1] {
		next, err := openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		if err != nil {
			linked := isLink(dir, name)
			unix.Close(dir)
			if linked {
				return nil, nil, linkAbove(path, filepath.Join(parts[:i+1]...))
			}
			return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		unix.Close(dir)
		dir = next
	}
	last := parts[len(parts)-1]
	// O_NONBLOCK: a named pipe would otherwise wait for a writer (see open).
	fd, err := openat(dir, last, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		linked := errors.Is(err, unix.ELOOP) || isLink(dir, last)
		unix.Close(dir)
		if linked {
			return nil, nil, &NotRegularError{Path: path, What: "a symbolic link"}
		}
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	unix.Close(dir)
	return checkFD(fd, path)
}

func openat(dir int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// isLink reports whether name in dir is a symbolic link (O_NOFOLLOW answers ELOOP on Linux, ENOTDIR or EMLINK
// elsewhere, so the kind is asked directly).
func isLink(dir int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}
