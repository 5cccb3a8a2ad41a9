//go:build !windows

package pagecache

// MaxPath bounds a whole path where the platform does (see maxpath_windows.go); 0: only each name is bounded.
const MaxPath = 0
