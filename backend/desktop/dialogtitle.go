package desktop

import (
	"strings"
	"unicode"
)

// maxTitleRunes bounds the title of a native dialog: the window sends it (in the user's language), and any script in
// the webview can call the method that opens the dialog.
const maxTitleRunes = 120

// dialogTitle is the title the window asked for, made fit for a native dialog: invalid UTF-8 and control characters
// (line breaks, bidi overrides and other formatting characters included) dropped, spaces trimmed, at most
// maxTitleRunes runes. An empty result gives fallback, the English title.
func dialogTitle(title, fallback string) string {
	var b strings.Builder
	n := 0
	for _, r := range title {
		if n == maxTitleRunes {
			break
		}
		if r == unicode.ReplacementChar || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		b.WriteRune(r)
		n++
	}
	if t := strings.TrimSpace(b.String()); t != "" {
		return t
	}
	return fallback
}
