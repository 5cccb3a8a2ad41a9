package htmlconv

import (
	"fmt"
	"html"
	"io"
	"strings"

	"proofglass/backend/mail"
)

// Message renders an e-mail message as XHTML: its subject as the heading, a table of its headers (from, to, cc,
// date), the readable body in paragraphs and the names of its attachments (which ingest adds as documents of
// their own). Images the body refers to are not fetched.
func Message(r io.Reader) ([]byte, error) {
	m, err := mail.Parse(r)
	if err != nil {
		return nil, err
	}
	return MessagePage(m), nil
}

// MessagePage is the XHTML page of a message read already.
func MessagePage(m mail.Message) []byte {
	var b strings.Builder
	esc := html.EscapeString
	subject := m.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	fmt.Fprintf(&b, "<h1>%s</h1>\n<table>\n", esc(subject))
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>\n", k, esc(v))
		}
	}
	row("From", m.From)
	row("To", m.To)
	row("Cc", m.Cc)
	if !m.Date.IsZero() {
		row("Date", m.Date.Format("2 January 2006 15:04 -0700"))
	}
	b.WriteString("</table>\n")
	for _, para := range strings.Split(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n\n") {
		para = strings.Trim(para, "\n")
		if strings.TrimSpace(para) == "" {
			continue
		}
		lines := strings.Split(para, "\n")
		for i, l := range lines {
			lines[i] = esc(l)
		}
		fmt.Fprintf(&b, "<p>%s</p>\n", strings.Join(lines, "<br/>"))
	}
	if len(m.Attachments) > 0 {
		b.WriteString("<h2>Attachments</h2>\n<ul>\n")
		for _, a := range m.Attachments {
			fmt.Fprintf(&b, "<li>%s (%s)</li>\n", esc(a.Name), sizeText(len(a.Data)))
		}
		b.WriteString("</ul>\n")
	}
	return page(m.Subject, b.String())
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", (n+512)>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
