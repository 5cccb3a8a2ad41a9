package desktop

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A dialog title from the window is shown as given when it is plain text, and otherwise cleaned: it is attacker input
// (any script in the webview can open a dialog).
func TestDialogTitle(t *testing.T) {
	long := strings.Repeat("题", 500)
	for _, c := range []struct{ in, want string }{
		{"添加文档", "添加文档"},
		{"  Add documents \t", "Add documents"},
		{"Add\ndocuments\x00\x1b[31m", "Adddocuments[31m"},
		{"\u202egnp.exe", "gnp.exe"}, // a right-to-left override, which would reverse what follows
		{"bad \xff utf-8", "bad  utf-8"},
		{"", "Fallback"},
		{"\n\t \u200b", "Fallback"},
		{long, strings.Repeat("题", maxTitleRunes)},
	} {
		got := dialogTitle(c.in, "Fallback")
		if got != c.want {
			t.Errorf("dialogTitle(%q) = %q, want %q", c.in, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("dialogTitle(%q) = %q: not UTF-8", c.in, got)
		}
	}
}
