package pdf

import "os"

// cjkFontFile is a font file with CJK glyphs, and the face of each of its collection's orderings.
type cjkFontFile struct {
	path           string
	tc, sc, jp, kr int
}

// cjkFontEnv names a font file to use instead of the system's (one face for every ordering).
const cjkFontEnv = "PROOFGLASS_CJK_FONT"

// findCJKFont is the first of the environment's font and the platform's known CJK fonts that is installed.
func findCJKFont() (cjkFontFile, bool) {
	if p := os.Getenv(cjkFontEnv); p != "" {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return cjkFontFile{path: p}, true
		}
	}
	for _, f := range cjkFontFiles {
		if st, err := os.Stat(f.path); err == nil && st.Mode().IsRegular() {
			return f, true
		}
	}
	return cjkFontFile{}, false
}
