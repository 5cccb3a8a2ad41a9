package regularfile

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

func open(path string, follow bool) (*os.File, fs.FileInfo, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if !follow {
		// The link itself is opened, so its handle reports a reparse point and is refused below.
		attrs |= windows.FILE_FLAG_OPEN_REPARSE_POINT
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, attrs, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return check(os.NewFile(uintptr(h), path), path)
}
