// Command genpdf writes the sample library's text PDF: the Gettysburg Address (1863, public domain) set in
// Helvetica on a Letter page, with a title, a short table and a caption, so the sample shows a real text layer,
// word boxes and a region worth cropping. Run: go run ./backend/sample/internal/genpdf > backend/sample/files/gettysburg-address.pdf
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

const address = `Four score and seven years ago our fathers brought forth on this continent, a new nation, conceived in
Liberty, and dedicated to the proposition that all men are created equal. Now we are engaged in a great civil war,
testing whether that nation, or any nation so conceived and so dedicated, can long endure. We are met on a great
battle-field of that war. We have come to dedicate a portion of that field, as a final resting place for those who
here gave their lives that that nation might live. It is altogether fitting and proper that we should do this. But,
in a larger sense, we can not dedicate -- we can not consecrate -- we can not hallow -- this ground. The brave men,
living and dead, who struggled here, have consecrated it, far above our poor power to add or detract. The world will
little note, nor long remember what we say here, but it can never forget what they did here. It is for us the
living, rather, to be dedicated here to the unfinished work which they who fought here have thus far so nobly
advanced. It is rather for us to be here dedicated to the great task remaining before us -- that from these honored
dead we take increased devotion to that cause for which they gave the last full measure of devotion -- that we here
highly resolve that these dead shall not have died in vain -- that this nation, under God, shall have a new birth of
freedom -- and that government of the people, by the people, for the people, shall not perish from the earth.`

func esc(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

// wrap breaks text into lines of at most n characters.
func wrap(text string, n int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > n {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

func main() {
	var c bytes.Buffer
	text := func(font string, size, x, y float64, s string) {
		fmt.Fprintf(&c, "BT /%s %.1f Tf %.1f %.1f Td (%s) Tj ET\n", font, size, x, y, esc(s))
	}
	text("F2", 20, 72, 720, "The Gettysburg Address")
	text("F1", 11, 72, 700, "Abraham Lincoln, 19 November 1863, Soldiers' National Cemetery, Gettysburg, Pennsylvania")
	y := 670.0
	for _, l := range wrap(address, 92) {
		text("F1", 11, 72, y, l)
		y -= 15
	}
	// A small table, ruled, so the page has a region worth zooming into.
	y -= 20
	text("F2", 12, 72, y, "Table 1. Known manuscript copies")
	rows := [][2]string{{"Copy", "Where it is kept"}, {"Nicolay", "Library of Congress"}, {"Hay", "Library of Congress"},
		{"Everett", "Illinois State Historical Library"}, {"Bancroft", "Cornell University"}, {"Bliss", "The White House"}}
	y -= 22
	for i, r := range rows {
		font := "F1"
		if i == 0 {
			font = "F2"
		}
		text(font, 11, 80, y, r[0])
		text(font, 11, 220, y, r[1])
		fmt.Fprintf(&c, "0.5 w 72 %.1f m 460 %.1f l S\n", y-5, y-5)
		y -= 18
	}
	text("F1", 9, 72, y-10, "The Bliss copy, the last Lincoln wrote, is the one most often reproduced.")

	content := c.Bytes()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
		"<< /Title (The Gettysburg Address) /Author (Abraham Lincoln) /Producer (Proofglass sample generator) >>",
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R /Info 7 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	os.Stdout.Write(out.Bytes())
}
