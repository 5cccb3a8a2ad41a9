package termsafe

import "testing"

func TestEscape(t *testing.T) {
	for name, c := range map[string]struct {
		in, line, text string
	}{
		"plain":                {"report 2024.pdf", "report 2024.pdf", "report 2024.pdf"},
		"non-ASCII stays":      {"报告 — Ünïcödé.pdf", "报告 — Ünïcödé.pdf", "报告 — Ünïcödé.pdf"},
		"colour (CSI)":         {"\x1b[31mred.pdf", `\x1b[31mred.pdf`, `\x1b[31mred.pdf`},
		"title (OSC, BEL)":     {"\x1b]0;pwned\x07.pdf", `\x1b]0;pwned\x07.pdf`, `\x1b]0;pwned\x07.pdf`},
		"carriage return":      {"ok.pdf\rforged line", `ok.pdf\rforged line`, `ok.pdf\rforged line`},
		"newline and tab":      {"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		"NUL, BS and DEL":      {"a\x00b\x08c\x7f", `a\x00b\x08c\x7f`, `a\x00b\x08c\x7f`},
		"C1 CSI":               {"a\u009b31mb", `a\u009b31mb`, `a\u009b31mb`},
		"NEL (C1)":             {"a\u0085b", `a\u0085b`, `a\u0085b`},
		"bidi override":        {"invoice\u202egpj.exe", `invoice\u202egpj.exe`, `invoice\u202egpj.exe`},
		"bidi isolate":         {"a\u2066b\u2069", `a\u2066b\u2069`, `a\u2066b\u2069`},
		"invalid UTF-8":        {"a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
		"a real U+FFFD stays":  {"a\uFFFDb", "a\uFFFDb", "a\uFFFDb"},
		"zero-width joiner ok": {"👩\u200d💻", "👩\u200d💻", "👩\u200d💻"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := Line(c.in); got != c.line {
				t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
			}
			if got := Text(c.in); got != c.text {
				t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
			}
		})
	}
}

func BenchmarkLineClean(b *testing.B) {
	s := "a clean file name of an ordinary length.pdf"
	for b.Loop() {
		_ = Line(s)
	}
}
