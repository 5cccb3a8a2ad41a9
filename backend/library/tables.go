package library

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"

	"proofglass/backend/htmlconv"
	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
	"proofglass/backend/search"
	"proofglass/backend/tables"
)

// ResolveDocument is the one document ref names, by id or file name (the way Documents reads names); a name that
// matches several documents is refused. Refusals are RequestErrors.
func (l *Library) ResolveDocument(ctx context.Context, ref string) (kb.Document, error) {
	ids, err := search.ResolveDocuments(ctx, l.KB, "", []string{ref})
	if err != nil {
		return kb.Document{}, refused(err)
	}
	if len(ids) != 1 {
		return kb.Document{}, refused(fmt.Errorf("document %q: %d documents have that name; name one by id", ref, len(ids)))
	}
	d, err := l.KB.Docs.Document(ctx, ids[0])
	if err != nil {
		return kb.Document{}, fmt.Errorf("document %d: %w", ids[0], err)
	}
	return d, nil
}

// Tables finds the tables on a page of a document (page 0: on every page), top to bottom, each page's numbered
// from 1. A missing document or a page out of range is a RequestError.
func (l *Library) Tables(ctx context.Context, docID int64, page int) ([]tables.Table, error) {
	d, err := l.KB.Docs.Document(ctx, docID)
	if errors.Is(err, kb.ErrNotFound) {
		return nil, refused(fmt.Errorf("document %d: %w", docID, err))
	}
	if err != nil {
		return nil, fmt.Errorf("document %d: %w", docID, err)
	}
	if page < 0 || page > d.Pages {
		return nil, refused(fmt.Errorf("document %d (%s) has %d pages, not page %d", d.ID, d.Name, d.Pages, page))
	}
	if sheets, err := l.sheets(d); err != nil {
		return nil, err
	} else if sheets != nil {
		all, err := l.KB.Content.Units(ctx, docID)
		if err != nil {
			return nil, fmt.Errorf("read the pages of document %d: %w", docID, err)
		}
		if byPage, ok := tables.FromSheets(docID, sheets, all); ok {
			if page > 0 {
				return byPage[page], nil
			}
			var out []tables.Table
			for _, u := range all {
				out = append(out, byPage[u.Ordinal]...)
			}
			return out, nil
		}
		slog.Warn("tables: the pages do not show the spreadsheet's cells in order; reading its tables from the word boxes",
			"document", d.ID)
	}
	var units []kb.Unit
	if page == 0 {
		if units, err = l.KB.Content.Units(ctx, docID); err != nil {
			return nil, fmt.Errorf("read the pages of document %d: %w", docID, err)
		}
	} else {
		id, err := l.KB.Content.UnitID(ctx, docID, page)
		if errors.Is(err, kb.ErrNotFound) {
			return nil, refused(fmt.Errorf("document %d has no page %d stored: %w", docID, page, err))
		}
		if err != nil {
			return nil, fmt.Errorf("document %d page %d: %w", docID, page, err)
		}
		u, err := l.KB.Content.Unit(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("read document %d page %d: %w", docID, page, err)
		}
		units = []kb.Unit{u}
	}
	var out []tables.Table
	for _, u := range units {
		out = append(out, tables.Find(u)...)
	}
	return out, nil
}

// Sheets are the sheets of a spreadsheet document (Excel, OpenDocument, CSV, TSV) with their own cells, read from
// its original; another kind of document is a RequestError.
func (l *Library) Sheets(ctx context.Context, docID int64) ([]htmlconv.Sheet, error) {
	d, err := l.KB.Docs.Document(ctx, docID)
	if errors.Is(err, kb.ErrNotFound) {
		return nil, refused(fmt.Errorf("document %d: %w", docID, err))
	}
	if err != nil {
		return nil, fmt.Errorf("document %d: %w", docID, err)
	}
	sheets, err := l.sheets(d)
	if err != nil {
		return nil, err
	}
	if sheets == nil {
		return nil, refused(fmt.Errorf("document %d (%s) is not a spreadsheet: it has no sheets", d.ID, d.Name))
	}
	return sheets, nil
}

// sheets reads a spreadsheet document's sheets from its original (nil for other documents). The reader is pure Go
// and bounded; a panic in it on a hostile file is an error here, not the end of the process.
func (l *Library) sheets(d kb.Document) (sheets []htmlconv.Sheet, err error) {
	var read func(io.Reader) ([]htmlconv.Sheet, error)
	switch imagefile.DocumentKind(d.MIME) {
	case imagefile.XLSX:
		read = htmlconv.Workbook
	case imagefile.ODS:
		read = htmlconv.OpenDocumentSheets
	case imagefile.CSV, imagefile.TSV:
		comma := ','
		if imagefile.DocumentKind(d.MIME) == imagefile.TSV {
			comma = '\t'
		}
		read = func(r io.Reader) ([]htmlconv.Sheet, error) {
			s, err := htmlconv.TableSheet(r, comma)
			return []htmlconv.Sheet{s}, err
		}
	default:
		return nil, nil
	}
	if d.Blob == "" || !l.KB.Blobs.Has(d.Blob) {
		return nil, fmt.Errorf("document %d (%s): its original is not in the blob store", d.ID, d.Name)
	}
	f, err := os.Open(l.KB.Blobs.Path(d.Blob))
	if err != nil {
		return nil, fmt.Errorf("document %d (%s): open its original: %w", d.ID, d.Name, err)
	}
	defer f.Close()
	defer func() {
		if p := recover(); p != nil {
			sheets, err = nil, fmt.Errorf("document %d (%s): read its sheets: %v", d.ID, d.Name, p)
		}
	}()
	if sheets, err = read(f); err != nil {
		return nil, fmt.Errorf("document %d (%s): read its sheets: %w", d.ID, d.Name, err)
	}
	return sheets, nil
}

// ErrNoTable is the error (inside a RequestError) for a page without the table asked for.
var ErrNoTable = errors.New("no such table")

// Table is table k (from 1, top to bottom) of a page of a document.
func (l *Library) Table(ctx context.Context, docID int64, page, k int) (tables.Table, error) {
	if page < 1 {
		return tables.Table{}, refused(fmt.Errorf("page %d: pages are numbered from 1", page))
	}
	ts, err := l.Tables(ctx, docID, page)
	if err != nil {
		return tables.Table{}, err
	}
	switch {
	case len(ts) == 0:
		return tables.Table{}, refused(fmt.Errorf("document %d page %d: no table found on the page: %w", docID, page, ErrNoTable))
	case k < 1 || k > len(ts):
		return tables.Table{}, refused(fmt.Errorf("document %d page %d has %s, not table %d: %w", docID, page,
			plural(len(ts), "table"), k, ErrNoTable))
	}
	return ts[k-1], nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
