package pagecache

// invalidNameRune reports what a Windows file name cannot hold: separators, the reserved <>:"|?* and control
// characters.
func invalidNameRune(r rune) bool {
	switch r {
	case '/', '\\', '<', '>', ':', '"', '|', '?', '*':
		return true
	}
	return r < 32
}
