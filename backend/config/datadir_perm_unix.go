//go:build unix

package config

import (
	"fmt"
	"os"
	"syscall"
)

// checkDataDirOwner refuses, as ssh refuses a key file others can change, a data directory another local user could
// write to: they could plant the lock and socket that later launches hand their files to, or swap the database.
func checkDataDirOwner(dir string, st os.FileInfo) error {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		if uid := os.Getuid(); int(s.Uid) != uid && s.Uid != 0 {
			return &UnsafeDataDirError{Dir: dir, Why: fmt.Sprintf("it belongs to another user (uid %d)", s.Uid),
				Fix: "use a directory of your own: --data DIR or PROOFGLASS_DATA"}
		}
	}
	// A group write bit is harmless where the group is the user's own primary group (a user private group, the
	// default with umask 002 on Ubuntu), as ssh allows it.
	ownGroup := false
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		ownGroup = int(s.Gid) == os.Getgid()
	}
	switch perm := st.Mode().Perm(); {
	case perm&0o002 != 0:
		return &UnsafeDataDirError{Dir: dir, Why: fmt.Sprintf("every user may write to it (mode %04o)", perm), Fix: "chmod 700 " + dir}
	case perm&0o020 != 0 && !ownGroup:
		return &UnsafeDataDirError{Dir: dir, Why: fmt.Sprintf("its group, which is not yours, may write to it (mode %04o)", perm),
			Fix: "chmod 700 " + dir}
	}
	return nil
}
