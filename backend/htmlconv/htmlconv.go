// Package htmlconv renders the formats MuPDF does not lay out as Proofglass wants (Markdown, CSV, TSV, OpenDocument, e-mail) as XHTML documents for MuPDF to page.
package htmlconv

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// Limits of what is rendered: past them a file is refused with why, since MuPDF lays the whole XHTML out at once.
const (
	MaxBytes = 32 << 20 // of a Markdown, CSV or TSV file
	MaxRows  = 200_000  // of a CSV or TSV file
	MaxCells = 2_000_000
)

// ErrTooLarge is wrapped by the errors of files past the limits.
var ErrTooLarge = errors.New("too large to lay out")

// style lays the text out plainly; table cells get borders so a page's table reads as one.
const style = `body{font-family:sans-serif;font-size:11pt;margin:0}
table{border-collapse:collapse}td,th{border:0.5pt solid #888;padding:1pt 3pt;vertical-align:top;text-align:left}
th{font-weight:bold}pre{white-space:pre-wrap}h1,h2,h3,h4,h5,h6{font-weight:bold}`

func page(title, body string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="application/xhtml+xml; charset=utf-8"/><title>`)
	b.WriteString(html.EscapeString(title))
	b.WriteString(`</title><style>` + style + `</style></head><body>` + "\n")
	b.WriteString(body)
	b.WriteString("\n</body></html>\n")
	return []byte(b.String())
}

func readAll(r io.Reader, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%s of more than %d MiB: %w", what, MaxBytes>>20, ErrTooLarge)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%s is not UTF-8 text", what)
	}
	return b, nil
}

// markdown is CommonMark with GitHub's tables, strikethrough and task lists. Raw HTML in the file is left out
// (goldmark's default), so a file cannot pull in what the XHTML would then fetch or run.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithXHTML()))

// Markdown renders a Markdown file as XHTML: headings stay h1–h6, so MuPDF sets them as their own larger lines.
func Markdown(r io.Reader) ([]byte, error) {
	src, err := readAll(r, "Markdown file")
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	if err := markdown.Convert(src, &body); err != nil {
		return nil, fmt.Errorf("render Markdown: %w", err)
	}
	return page("", body.String()), nil
}

// Table renders a CSV (comma ',') or TSV (comma '\t') file as one XHTML table whose first row is its header, so
// every cell is a run of words of its own on its row's line. Rows of uneven length are kept as they are.
func Table(r io.Reader, comma rune) ([]byte, error) {
	s, err := TableSheet(r, comma)
	if err != nil {
		return nil, err
	}
	return SheetsPage([]Sheet{s}), nil
}
