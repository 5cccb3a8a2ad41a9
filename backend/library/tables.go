package library

import (
	"context"
	"errors"
	"fmt"
	"strconv"

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
