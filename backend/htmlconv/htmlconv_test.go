package htmlconv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMarkdownKeepsHeadingsAndTables(t *testing.T) {
	out, err := Markdown(strings.NewReader("# Title\n\ntext & more\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>x</script>\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"<h1>Title</h1>", "text &amp; more", "<td>1</td>", `xmlns="http://www.w3.org/1999/xhtml"`} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in %s", want, s)
		}
	}
	if strings.Contains(s, "<script>") {
		t.Error("raw HTML kept")
	}
}

func TestTable(t *testing.T) {
	cases := []struct {
		name, in string
		comma    rune
		want     []string
		err      string
	}{
		{"csv", "h1,h2\n\"a, b\",<c>\n", ',', []string{"<th>h1</th><th>h2</th>", "<td>a, b</td><td>&lt;c&gt;</td>"}, ""},
		{"tsv", "h\tk\nx\t\"y\n", '\t', []string{"<th>h</th><th>k</th>", "<td>x</td>"}, ""},
		{"uneven rows", "a,b,c\n1\n", ',', []string{"<td>1</td></tr>"}, ""},
		{"empty", "", ',', nil, "no rows"},
		{"not utf-8", "a,\xff\n", ',', nil, "not UTF-8"},
		{"too many rows", strings.Repeat("1\n", MaxRows+1), ',', nil, "too large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Table(strings.NewReader(c.in), c.comma)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				if c.err == "too large" && !errors.Is(err, ErrTooLarge) {
					t.Errorf("%v is not ErrTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("no %q in %s", w, out)
				}
			}
		})
	}
}

// OpenDocument files become XHTML with their headings, lists, sheets as tables (a sheet's million repeated empty
// rows and 16,000 repeated empty cells left out) and slides as titled sections; a package without content.xml is
// refused with why.
func TestOpenDocument(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
		max  int
	}{
		{"notes.odt", []string{"<h1>Field notes</h1>", "wombatodt survey counted owls and bats", "<li><p>north wood</p>", "<td>North</td><td>4</td>"}, 4000},
		{"stock.ods", []string{"<h2>Stock</h2>", "<tr><td>Item</td><td>Count</td></tr>", "<tr><td>wombatods</td><td>14</td></tr>"}, 4000},
		{"tour.odp", []string{"<h2>Intro</h2>", "wombatodp tour starts at noon", "<h2>Route</h2>"}, 4000},
	} {
		f, err := os.Open(filepath.Join("..", "ingest", "testdata", "formats", c.file))
		if err != nil {
			t.Fatal(err)
		}
		out, err := OpenDocument(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: no %q in\n%s", c.file, w, out)
			}
		}
		if len(out) > c.max {
			t.Errorf("%s: %d bytes of XHTML, want at most %d (repeated empty cells left out)", c.file, len(out), c.max)
		}
	}
	f, err := os.Open(filepath.Join("..", "ingest", "testdata", "formats", "bad-nocontent.odt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := OpenDocument(f); err == nil || !strings.Contains(err.Error(), "no content.xml") {
		t.Errorf("a package without content.xml: %v", err)
	}
}
