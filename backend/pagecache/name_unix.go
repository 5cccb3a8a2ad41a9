//go:build !windows

package pagecache

// invalidNameRune reports what a file name cannot hold here: the separator and NUL.
func invalidNameRune(r rune) bool { return r == '/' || r == 0 }
