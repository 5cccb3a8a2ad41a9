package pagecache

// MaxPath is the longest path, in UTF-16 characters, that Windows programs open without long-path support
// (MAX_PATH, 260, less the terminating NUL): VRAG's Python clients open the page files Proofglass hands them.
const MaxPath = 259
