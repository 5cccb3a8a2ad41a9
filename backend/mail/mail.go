// Package mail reads e-mail messages (RFC 5322 with MIME) and mbox mailboxes: the headers people search by, the body as readable text, and the attachments, bounded in size, parts and depth.
package mail

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/encoding/htmlindex"
)

// Bounds on what one message may make Proofglass read.
const (
	MaxMessageBytes = 64 << 20 // one message, attachments included
	MaxParts        = 256      // MIME parts of one message, at every depth
	MaxDepth        = 8        // nesting of multiparts
	MaxBodyBytes    = 4 << 20  // of the readable body text
	MaxMessages     = 20_000   // of one mailbox
	maxHeaderBytes  = 256 << 10
)

// Errors that readers wrap.
var (
	ErrNotMessage = errors.New("not an e-mail message")
	ErrTooLarge   = errors.New("too large")
)

// Message is what Proofglass reads of one e-mail.
type Message struct {
	From, To, Cc string
	Subject      string
	Date         time.Time // zero when the message has none or it cannot be read
	MessageID    string
	// Body is the readable text: the plain-text part when there is one, else the HTML part's text.
	Body        string
	Attachments []Attachment
	// Skipped says what of the message was not read (a part past the bounds, a charset not known), for warnings.
	Skipped []string
}

// Attachment is one attached file.
type Attachment struct {
	Name string // the file name the message gives it, made safe ("attachment-N" when it gives none)
	MIME string
	Data []byte
}

// Parse reads one message. Only a message with at least one of From, Date or Subject and a header that ends is
// one: text that merely has colons in it is ErrNotMessage.
func Parse(r io.Reader) (Message, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxMessageBytes+1))
	if err != nil {
		return Message{}, fmt.Errorf("read message: %w", err)
	}
	if len(raw) > MaxMessageBytes {
		return Message{}, fmt.Errorf("message of more than %d MiB: %w", MaxMessageBytes>>20, ErrTooLarge)
	}
	return ParseBytes(raw)
}

// ParseBytes is Parse of a message held in memory.
func ParseBytes(raw []byte) (Message, error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	if len(raw) > MaxMessageBytes {
		return Message{}, fmt.Errorf("message of more than %d MiB: %w", MaxMessageBytes>>20, ErrTooLarge)
	}
	out, m, err := readHeader(raw)
	if err != nil {
		return Message{}, err
	}
	w := walker{msg: &out}
	w.part(map[string][]string(m.Header), m.Body, 0)
	if w.plain != "" {
		out.Body = w.plain
	} else {
		out.Body = w.html
	}
	return out, nil
}

// ParseHeader reads only the header of the message r starts with: its From, To, Cc, Subject, Date and Message-ID,
// without the body or attachments (reading at most the first 256 KiB). It refuses what Parse refuses as no message.
func ParseHeader(r io.Reader) (Message, error) {
	head, err := io.ReadAll(io.LimitReader(r, maxHeaderBytes))
	if err != nil {
		return Message{}, fmt.Errorf("read message: %w", err)
	}
	out, _, err := readHeader(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	return out, err
}

// readHeader checks that raw starts as a message and reads its header; the returned message's Body is the rest.
func readHeader(raw []byte) (Message, *netmail.Message, error) {
	if !LooksLikeMessage(raw) {
		return Message{}, nil, fmt.Errorf("%w: no header with From, Date or Subject", ErrNotMessage)
	}
	m, err := netmail.ReadMessage(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		return Message{}, nil, fmt.Errorf("%w: %v", ErrNotMessage, err)
	}
	var out Message
	h := m.Header
	out.From = decodeHeader(h.Get("From"))
	out.To = decodeHeader(h.Get("To"))
	out.Cc = decodeHeader(h.Get("Cc"))
	out.Subject = decodeHeader(h.Get("Subject"))
	out.MessageID = strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>")
	if d, err := netmail.ParseDate(h.Get("Date")); err == nil {
		out.Date = d
	}
	return out, m, nil
}

// LooksLikeMessage reports whether b starts as an e-mail message does: header fields (name, colon, value, with
// folded continuation lines) among which From, Date or Subject, up to an empty line or the end of b.
func LooksLikeMessage(b []byte) bool { return looksLike(b, false) }

// HeadLooksLikeMessage is LooksLikeMessage of the first bytes of a longer file: a header that goes on past them
// (received lines and signatures run to kilobytes before From) needs only its complete lines to be fields.
func HeadLooksLikeMessage(head []byte) bool { return looksLike(head, true) }

func looksLike(b []byte, cut bool) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(b) > maxHeaderBytes {
		b = b[:maxHeaderBytes]
	}
	key := false
	fields := 0
	for len(b) > 0 {
		line := b
		rest := []byte(nil)
		last := true
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, rest, last = b[:i], b[i+1:], false
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		b = rest
		if len(line) == 0 {
			return key && fields > 0
		}
		if line[0] == ' ' || line[0] == '\t' {
			if fields == 0 {
				return false
			}
			continue
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			return cut && last && fields >= 2 && fieldName(line)
		}
		if !fieldName(line[:i]) {
			return false
		}
		switch strings.ToLower(string(line[:i])) {
		case "from", "date", "subject":
			key = true
		}
		fields++
	}
	return fields > 0 && (key || cut && fields >= 2)
}

// fieldName reports whether b is made of the printable characters header field names are.
func fieldName(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c > '~' || c == ':' {
			return false
		}
	}
	return len(b) > 0
}

// walker gathers the body and attachments of a MIME tree.
type walker struct {
	msg   *Message
	parts int
	plain string
	html  string
}

func (w *walker) part(h map[string][]string, body io.Reader, depth int) {
	w.parts++
	if w.parts > MaxParts {
		if w.parts == MaxParts+1 {
			w.msg.Skipped = append(w.msg.Skipped, fmt.Sprintf("parts past the first %d", MaxParts))
		}
		return
	}
	get := func(k string) string {
		if v := h[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	ctype, params, err := mime.ParseMediaType(get("Content-Type"))
	if err != nil || ctype == "" {
		ctype, params = "text/plain", map[string]string{"charset": "us-ascii"}
	}
	disp, dparams, _ := mime.ParseMediaType(get("Content-Disposition"))
	name := decodeHeader(dparams["filename"])
	if name == "" {
		name = decodeHeader(params["name"])
	}
	if strings.HasPrefix(ctype, "multipart/") {
		if depth >= MaxDepth {
			w.msg.Skipped = append(w.msg.Skipped, fmt.Sprintf("parts nested deeper than %d", MaxDepth))
			return
		}
		boundary := params["boundary"]
		if boundary == "" {
			w.msg.Skipped = append(w.msg.Skipped, "a multipart with no boundary")
			return
		}
		mr := multipart.NewReader(body, boundary)
		for {
			p, err := mr.NextRawPart()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					w.msg.Skipped = append(w.msg.Skipped, "the rest of a damaged multipart: "+err.Error())
				}
				return
			}
			w.part(p.Header, p, depth+1)
		}
	}
	data, err := io.ReadAll(decodeTransfer(get("Content-Transfer-Encoding"), body))
	if err != nil {
		w.msg.Skipped = append(w.msg.Skipped, fmt.Sprintf("a %s part that cannot be decoded: %v", ctype, err))
		return
	}
	attached := disp == "attachment" || (name != "" && disp != "inline") || ctype == "message/rfc822"
	if !attached && strings.HasPrefix(ctype, "text/") && (ctype == "text/plain" || ctype == "text/html") {
		text, err := decodeCharset(data, params["charset"])
		if err != nil {
			w.msg.Skipped = append(w.msg.Skipped, err.Error())
		}
		if ctype == "text/html" {
			text = htmlText(text)
			if w.html == "" {
				w.html = bound(text)
			}
			return
		}
		if w.plain == "" {
			w.plain = bound(strings.ReplaceAll(text, "\r\n", "\n"))
		}
		return
	}
	if !attached {
		return // an inline image or other part of the body's layout
	}
	n := len(w.msg.Attachments) + 1
	if name == "" && ctype == "message/rfc822" {
		name = fmt.Sprintf("message-%d.eml", n)
	}
	w.msg.Attachments = append(w.msg.Attachments, Attachment{Name: SafeName(name, n), MIME: ctype, Data: data})
}

func bound(s string) string {
	if len(s) <= MaxBodyBytes {
		return s
	}
	cut := MaxBodyBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut-- // at a character's start
	}
	return s[:cut]
}

// SafeName is a file name an attachment can have on any file system: its base name without path separators or
// control characters, at most 120 bytes (its extension kept), "attachment-N" when nothing is left.
func SafeName(name string, n int) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, name)
	name = strings.Trim(name, " .")
	if name == "" || name == "_" {
		return fmt.Sprintf("attachment-%d", n)
	}
	if len(name) > 120 {
		ext := path.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:120-len(ext)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
		name = stem + ext
	}
	return name
}

func decodeTransfer(enc string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &base64Clean{r: r})
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// base64Clean drops the line breaks and spaces base64 bodies are written with, which the decoder refuses.
type base64Clean struct{ r io.Reader }

func (c *base64Clean) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		k := 0
		for _, b := range p[:n] {
			if b != '\r' && b != '\n' && b != ' ' && b != '\t' {
				p[k] = b
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// decodeCharset turns text in a named charset into UTF-8; an unknown one is read as UTF-8 with bad bytes replaced.
func decodeCharset(b []byte, charset string) (string, error) {
	cs := strings.ToLower(strings.TrimSpace(charset))
	switch cs {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return strings.ToValidUTF8(string(b), "\uFFFD"), nil
	}
	enc, err := htmlindex.Get(cs)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD"), fmt.Errorf("charset %q is not known: read as UTF-8", charset)
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD"), fmt.Errorf("charset %q: %v", charset, err)
	}
	return string(out), nil
}

var wordDecoder = &mime.WordDecoder{CharsetReader: func(charset string, r io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(strings.ToLower(charset))
	if err != nil {
		return nil, err
	}
	return enc.NewDecoder().Reader(r), nil
}}

// decodeHeader decodes RFC 2047 encoded words; a header that cannot be decoded is kept as written.
func decodeHeader(s string) string {
	if s == "" {
		return ""
	}
	d, err := wordDecoder.DecodeHeader(s)
	if err != nil {
		d = s
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(d, "\uFFFD")), " ")
}

// htmlText is the text of an HTML body: scripts and styles dropped, block elements on lines of their own.
func htmlText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return collapseLines(b.String())
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Script, atom.Style, atom.Head, atom.Title:
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case atom.Br, atom.P, atom.Div, atom.Tr, atom.Li, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
				atom.Table, atom.Blockquote, atom.Pre, atom.Hr:
				b.WriteByte('\n')
			case atom.Td, atom.Th:
				if tt == html.StartTagToken {
					b.WriteByte('\t')
				}
			}
		}
	}
}

// collapseLines trims each line and keeps at most one empty line in a row.
func collapseLines(s string) string {
	var out []string
	empty := 0
	for _, l := range strings.Split(s, "\n") {
		l = strings.Join(strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\u00a0' || r == '\r' }), " ")
		l = strings.Trim(l, "\t ")
		if l == "" {
			empty++
			if empty > 1 || len(out) == 0 {
				continue
			}
		} else {
			empty = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
