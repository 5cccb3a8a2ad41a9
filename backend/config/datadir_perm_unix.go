//go:build unix

package config

import (
	"fmt"
	"log/slog"
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
	perm := st.Mode().Perm()
	switch {
	case perm&0o002 != 0:
		return &UnsafeDataDirError{Dir: dir, Why: fmt.Sprintf("every user may write to it (mode %s)", modeOctal(st.Mode())), Fix: "chmod 700 " + dir}
	case perm&0o020 != 0 && !ownGroup:
		return &UnsafeDataDirError{Dir: dir, Why: fmt.Sprintf("its group, which is not yours, may write to it (mode %s)", modeOctal(st.Mode())),
			Fix: "chmod 700 " + dir}
	case perm&0o020 != 0:
		// Allowed, as ssh allows it, but said: anyone later added to the group could change the library.
		slog.Warn("the data directory is writable by its group (your own); chmod 700 keeps it yours alone",
			"dir", dir, "mode", modeOctal(st.Mode()))
	}
	return nil
}

// modeOctal writes a mode as chmod takes it, with the setuid, setgid and sticky bits (1777 for /tmp, not 0777).
func modeOctal(m os.FileMode) string {
	v := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		v |= 0o1000
	}
	return fmt.Sprintf("%04o", v)
}
