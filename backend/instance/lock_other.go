//go:build !(linux || darwin || freebsd || windows)

package instance

import (
	"errors"
	"os"
)

// tryLock is not implemented here (Windows would use LockFileEx); single-instance handling is off.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("single instance is not supported on this OS")
}
