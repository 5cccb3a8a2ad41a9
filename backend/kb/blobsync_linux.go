package kb

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncBlobs makes the blobs at paths, all under dir, durable with one syncfs(2) of dir's filesystem: it writes
// back every dirty file and directory there, so one call covers the whole batch whatever its size.
func syncBlobs(dir string, paths []string) error {
	if len(paths) == 1 {
		return syncEach(paths) // one file: an fsync writes back less than a whole filesystem
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}
