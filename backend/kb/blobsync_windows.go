package kb

import (
	"os"
	"path/filepath"
)

// syncBlobs flushes each blob. Windows' FlushFileBuffers needs a handle opened for writing (a read-only one fails
// with "Access denied"), and directories need no flush for a new name to last (NTFS journals its metadata).
func syncBlobs(_ string, paths []string) error {
	for _, p := range paths {
		f, err := os.OpenFile(filepath.Clean(p), os.O_RDWR, 0)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
