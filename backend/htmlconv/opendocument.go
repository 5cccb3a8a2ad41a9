package htmlconv

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
)

// OpenDocument's namespaces, by what the converter reads of them.
const (
	nsOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	nsText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsDraw   = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
)

// Bounds of an OpenDocument file: its content.xml unpacked, and the cells a sheet's repeated empty cells and rows may
// stand for (a spreadsheet marks the rest of a row as 16,000 repeated empty cells).
const (
	maxContentXML = 64 << 20
	maxRepeat     = 100
)

// OpenDocument renders an OpenDocument text, spreadsheet or presentation (ODT, ODS, ODP) as XHTML: MuPDF reads none
// of them, and LibreOffice (300 MB) is not needed for their text, headings, lists and tables. Headings stay h1–h6,
// each sheet is a titled table whose cells keep their rows, and each slide is a titled section. Pictures are left out.
func OpenDocument(r io.Reader) ([]byte, error) {
	body, _, err := openDocument(r)
	if err != nil {
		return nil, err
	}
	return page("", body), nil
}

// OpenDocumentSpreadsheetPage renders an OpenDocument spreadsheet (ODS) as XHTML (SheetsPage), as an Excel workbook
// is.
func OpenDocumentSpreadsheetPage(r io.Reader) ([]byte, error) {
	sheets, err := OpenDocumentSheets(r)
	if err != nil {
		return nil, err
	}
	return SheetsPage(sheets), nil
}

// openDocument reads an OpenDocument file's body as XHTML and its tables as sheets.
func openDocument(r io.Reader) (string, []Sheet, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return "", nil, fmt.Errorf("read OpenDocument file: %w", err)
	}
	if len(b) > MaxBytes {
		return "", nil, fmt.Errorf("OpenDocument file of more than %d MiB: %w", MaxBytes>>20, ErrTooLarge)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", nil, fmt.Errorf("damaged OpenDocument package: %w", err)
	}
	var content *zip.File
	for _, f := range zr.File {
		if f.Name == "content.xml" {
			content = f
		}
	}
	if content == nil {
		return "", nil, errors.New("damaged OpenDocument package: it has no content.xml")
	}
	rc, err := content.Open()
	if err != nil {
		return "", nil, fmt.Errorf("damaged OpenDocument package: content.xml: %w", err)
	}
	defer rc.Close()
	lr := &io.LimitedReader{R: rc, N: maxContentXML + 1}
	var sheets []Sheet
	body, err := odfBody(lr, &sheets)
	if lr.N <= 0 {
		return "", nil, fmt.Errorf("OpenDocument content of more than %d MiB: %w", maxContentXML>>20, ErrTooLarge)
	}
	if err != nil {
		return "", nil, fmt.Errorf("damaged OpenDocument content.xml: %w", err)
	}
	return body, sheets, nil
}

// odfBody writes the XHTML of content.xml's office:body, and appends its tables to sheets.
func odfBody(r io.Reader, sheets *[]Sheet) (string, error) {
	d := xml.NewDecoder(r)
	var out strings.Builder
	var stack []string // the XHTML elements open, to close them in order
	inBody, slides := 0, 0
	// cell is the text of the table cell being read and how often it repeats; row the cells of the row being read.
	var cell *strings.Builder
	cellRepeat, rowRepeat := 1, 1
	var row []string
	write := func(s string) {
		if cell != nil {
			cell.WriteString(s)
		} else {
			out.WriteString(s)
		}
	}
	open := func(tag string) { write("<" + tag + ">"); stack = append(stack, tag) }
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == nsOffice && t.Name.Local == "body" {
				inBody++
				continue
			}
			if inBody == 0 {
				continue
			}
			switch {
			case t.Name.Space == nsOffice && t.Name.Local == "annotation":
				if err := d.Skip(); err != nil {
					return "", err
				}
			case t.Name.Space == nsText && t.Name.Local == "h":
				level := min(max(atoiAttr(t, nsText, "outline-level", 1), 1), 6)
				open("h" + strconv.Itoa(level))
			case t.Name.Space == nsText && t.Name.Local == "p":
				if cell == nil {
					open("p")
				} else if cell.Len() > 0 {
					cell.WriteString(" ")
				}
			case t.Name.Space == nsText && (t.Name.Local == "list"):
				open("ul")
			case t.Name.Space == nsText && t.Name.Local == "list-item":
				open("li")
			case t.Name.Space == nsText && t.Name.Local == "s":
				write(strings.Repeat(" ", min(max(atoiAttr(t, nsText, "c", 1), 1), 8)))
			case t.Name.Space == nsText && t.Name.Local == "tab":
				write(" ")
			case t.Name.Space == nsText && t.Name.Local == "line-break":
				write("<br/>")
			case t.Name.Space == nsTable && t.Name.Local == "table":
				name := attr(t, nsTable, "name")
				if name != "" {
					out.WriteString("<h2>" + html.EscapeString(name) + "</h2>\n")
				}
				*sheets = append(*sheets, Sheet{Name: name})
				out.WriteString("<table>\n")
			case t.Name.Space == nsTable && t.Name.Local == "table-row":
				row, rowRepeat = nil, min(max(atoiAttr(t, nsTable, "number-rows-repeated", 1), 1), maxRepeat)
			case t.Name.Space == nsTable && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell"):
				cell, cellRepeat = &strings.Builder{}, min(max(atoiAttr(t, nsTable, "number-columns-repeated", 1), 1), maxRepeat)
			case t.Name.Space == nsDraw && t.Name.Local == "page":
				slides++
				title := attr(t, nsDraw, "name")
				if title == "" {
					title = "Slide " + strconv.Itoa(slides)
				}
				out.WriteString("<h2>" + html.EscapeString(title) + "</h2>\n")
			}
		case xml.EndElement:
			if t.Name.Space == nsOffice && t.Name.Local == "body" {
				inBody--
				continue
			}
			if inBody == 0 {
				continue
			}
			switch {
			case t.Name.Space == nsText && (t.Name.Local == "h" || (t.Name.Local == "p" && cell == nil) || t.Name.Local == "list" || t.Name.Local == "list-item"):
				if n := len(stack); n > 0 {
					write("</" + stack[n-1] + ">")
					stack = stack[:n-1]
					if t.Name.Local != "list-item" {
						write("\n")
					}
				}
			case t.Name.Space == nsTable && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell"):
				text := strings.TrimSpace(cell.String())
				n := cellRepeat
				if text == "" && n > 1 {
					n = 1 // the rest of a row marked as thousands of empty cells
				}
				for range n {
					row = append(row, text)
				}
				cell = nil
			case t.Name.Space == nsTable && t.Name.Local == "table-row":
				for len(row) > 0 && row[len(row)-1] == "" {
					row = row[:len(row)-1]
				}
				if len(row) == 0 {
					continue // empty rows (and a sheet's million repeated ones) say nothing
				}
				var b strings.Builder
				b.WriteString("<tr>")
				for _, c := range row {
					b.WriteString("<td>" + c + "</td>")
				}
				b.WriteString("</tr>\n")
				raw := make([]string, len(row))
				for i, c := range row {
					raw[i] = strings.TrimSpace(html.UnescapeString(strings.ReplaceAll(c, "<br/>", " ")))
				}
				for range rowRepeat {
					out.WriteString(b.String())
					if n := len(*sheets); n > 0 && len((*sheets)[n-1].Rows) < MaxRows {
						(*sheets)[n-1].Rows = append((*sheets)[n-1].Rows, raw)
					}
				}
			case t.Name.Space == nsTable && t.Name.Local == "table":
				out.WriteString("</table>\n")
			}
		case xml.CharData:
			if inBody > 0 {
				write(html.EscapeString(string(t)))
			}
		}
	}
	return out.String(), nil
}

// attr is an element's attribute in a namespace ("" when absent).
func attr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// atoiAttr is an attribute's whole number, def when absent or not a number.
func atoiAttr(t xml.StartElement, space, local string, def int) int {
	n, err := strconv.Atoi(attr(t, space, local))
	if err != nil {
		return def
	}
	return n
}
