//go:build unix

package vector

import (
	"os"
	"syscall"
)

// mapFile maps f privately: reads come from the page cache, writes (an index growing in place) stay in memory.
func mapFile(f *os.File, size int) ([]byte, func(), error) {
	b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
