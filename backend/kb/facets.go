package kb

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Facet sources: a user's value wins over the extracted one and outlives re-extraction.
const (
	FacetExtracted = "extracted"
	FacetUser      = "user"
)

// Facet is one facet of a document (title, org, kind, year, quarter, date; backend/facets names them).
type Facet struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"` // extracted | user
	Norm   string `json:"-"`      // the value folded for filters
}

// Facet filter operators on a facet's folded value.
const (
	FacetEq       = "eq"
	FacetPrefix   = "prefix"
	FacetContains = "contains"
)

// FacetCond admits a document whose facet Name matches one of Values (already folded) by Op.
type FacetCond struct {
	Name   string
	Op     string
	Values []string
}

// FacetFilter admits a document that passes every condition.
type FacetFilter []FacetCond

// ReplaceExtractedFacets replaces a document's extracted facets with fs (empty values are left out); the user's
// rows are untouched.
func (k *Facets) ReplaceExtractedFacets(ctx context.Context, docID int64, fs []Facet) error {
	err := k.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM document_facets WHERE document_id = ? AND source = 'extracted'`, docID); err != nil {
			return err
		}
		for _, f := range fs {
			if f.Value == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO document_facets(document_id, name, source, value, norm)
				VALUES (?, ?, 'extracted', ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value, norm = excluded.norm`,
				docID, f.Name, f.Value, f.Norm); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store facets of document %d: %w", docID, err)
	}
	return nil
}

// SetUserFacet records the user's value of a facet ("" says the document has none); ResetUserFacet forgets it.
func (k *Facets) SetUserFacet(ctx context.Context, docID int64, f Facet) error {
	_, err := k.db.ExecContext(ctx, `INSERT INTO document_facets(document_id, name, source, value, norm)
		SELECT id, ?, 'user', ?, ? FROM documents WHERE id = ?
		ON CONFLICT DO UPDATE SET value = excluded.value, norm = excluded.norm`, f.Name, f.Value, f.Norm, docID)
	if err != nil {
		return fmt.Errorf("set facet %s of document %d: %w", f.Name, docID, err)
	}
	return nil
}

// ResetUserFacet drops the user's value of a facet, so the extracted one shows again.
func (k *Facets) ResetUserFacet(ctx context.Context, docID int64, name string) error {
	_, err := k.db.ExecContext(ctx, `DELETE FROM document_facets WHERE document_id = ? AND name = ? AND source = 'user'`, docID, name)
	if err != nil {
		return fmt.Errorf("reset facet %s of document %d: %w", name, docID, err)
	}
	return nil
}

// DocumentFacets returns the effective facets of the given documents (the user's where set, else the extracted);
// a facet the user cleared is a user row with an empty value.
func (k *Facets) DocumentFacets(ctx context.Context, ids []int64) (map[int64][]Facet, error) {
	out := make(map[int64][]Facet, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	in, args := idArgs(ids)
	rows, err := k.db.QueryContext(ctx, `SELECT document_id, name, source, value, norm FROM document_facets_effective
		WHERE document_id IN (`+in+`) ORDER BY document_id, name`, args...)
	if err != nil {
		return nil, fmt.Errorf("document facets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var f Facet
		if err := rows.Scan(&id, &f.Name, &f.Source, &f.Value, &f.Norm); err != nil {
			return nil, fmt.Errorf("document facets: %w", err)
		}
		out[id] = append(out[id], f)
	}
	return out, rows.Err()
}

// where is the filter as a condition on documents d. The first exact (indexed) clause drives: its documents are
// listed from the (name, norm) index, and each other clause is a lookup of that document's facet by primary key,
// so a broad clause (kind=10-K of thousands) costs nothing per document it does not list.
func (f FacetFilter) where() (string, []any, error) {
	f = slices.Clone(f)
	slices.SortStableFunc(f, func(a, b FacetCond) int { return cmp.Compare(opCost(a.Op), opCost(b.Op)) })
	var conds []string
	var args []any
	for i, c := range f {
		if len(c.Values) == 0 {
			return "", nil, fmt.Errorf("facet %s: no value", c.Name)
		}
		var ors []string
		args = append(args, c.Name)
		for _, v := range c.Values {
			switch c.Op {
			case FacetEq:
				ors = append(ors, "e.norm = ?")
				args = append(args, v)
			case FacetPrefix:
				ors = append(ors, "(e.norm >= ? AND e.norm < ?)")
				args = append(args, v, v+"\U0010FFFF")
			case FacetContains:
				// LIKE's wildcards in the value are literal: escape them.
				esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(v)
				ors = append(ors, `e.norm LIKE ? ESCAPE '\'`)
				args = append(args, "%"+esc+"%")
			default:
				return "", nil, fmt.Errorf("facet %s: unknown operator %q", c.Name, c.Op)
			}
		}
		if i == 0 {
			conds = append(conds, `d.id IN (SELECT e.document_id FROM document_facets_effective e WHERE e.name = ? AND (`+
				strings.Join(ors, " OR ")+`))`)
		} else {
			conds = append(conds, `EXISTS (SELECT 1 FROM document_facets_effective e WHERE e.document_id = d.id AND e.name = ? AND (`+
				strings.Join(ors, " OR ")+`))`)
		}
	}
	return strings.Join(conds, " AND "), args, nil
}

// opCost orders clauses: index lookups first, substring scans last.
func opCost(op string) int {
	switch op {
	case FacetEq:
		return 0
	case FacetPrefix:
		return 1
	}
	return 2
}

// DocumentsWhere lists the documents that pass the filter.
func (k *Facets) DocumentsWhere(ctx context.Context, f FacetFilter) (map[int64]bool, error) {
	where, args, err := f.where()
	if err != nil {
		return nil, err
	}
	if where == "" {
		where = "1"
	}
	return queryMap(ctx, k.db, "documents where", func(r rowScanner) (int64, bool, error) {
		var id int64
		err := r.Scan(&id)
		return id, true, err
	}, `SELECT d.id FROM documents d WHERE `+where, args...)
}

// FacetValue is one distinct value of a facet with the documents that have it.
type FacetValue struct {
	Value, Norm string
	Documents   []int64
}

// FacetValues lists the distinct effective values of a facet with their documents.
func (k *Facets) FacetValues(ctx context.Context, name string) ([]FacetValue, error) {
	q := `SELECT norm, value, document_id FROM document_facets_effective WHERE name = ? AND norm != ''`
	args := []any{name}
	rows, err := k.db.QueryContext(ctx, q+` ORDER BY norm, document_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("values of facet %s: %w", name, err)
	}
	defer rows.Close()
	var out []FacetValue
	for rows.Next() {
		var norm, value string
		var id int64
		if err := rows.Scan(&norm, &value, &id); err != nil {
			return nil, fmt.Errorf("values of facet %s: %w", name, err)
		}
		if n := len(out); n > 0 && out[n-1].Norm == norm {
			out[n-1].Documents = append(out[n-1].Documents, id)
			continue
		}
		out = append(out, FacetValue{Value: value, Norm: norm, Documents: []int64{id}})
	}
	return out, rows.Err()
}

// FacetsVersion counts every change to documents' facets (a trigger keeps it): equal counts, equal facets.
func (k *Facets) FacetsVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := k.db.QueryRowContext(ctx, `SELECT v FROM facets_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, fmt.Errorf("facets version: %w", err)
	}
	return v, nil
}

// DocumentsWithoutFacets lists the ready documents that have no extracted facet row yet (a library made before
// facets, or a document whose extraction found nothing), oldest first; with all, every ready document.
func (k *Facets) DocumentsWithoutFacets(ctx context.Context, all bool) ([]int64, error) {
	ids, err := k.ids(ctx, `SELECT d.id FROM documents d WHERE d.status = 'ready' AND (? OR NOT EXISTS
		(SELECT 1 FROM document_facets f WHERE f.document_id = d.id AND f.source = 'extracted')) ORDER BY d.id`, all)
	if err != nil {
		return nil, fmt.Errorf("documents without facets: %w", err)
	}
	return ids, nil
}

// LeadingUnitTexts returns the ids and texts of a document's first n units, in order.
func (k *Facets) LeadingUnitTexts(ctx context.Context, docID int64, n int) ([]UnitText, error) {
	return queryAll(ctx, k.db, fmt.Sprintf("first pages of document %d", docID), func(r rowScanner) (u UnitText, err error) {
		err = r.Scan(&u.ID, &u.Text)
		return
	}, `SELECT id, text FROM units WHERE document_id = ? ORDER BY ordinal LIMIT ?`, docID, n)
}

// CollectionFacetValues lists, for each named facet, the distinct effective values of the ready documents of a
// collection (the user's value where set), with those documents: what the library offers to filter by. Values are
// grouped by their folded form and ordered by it.
func (k *Facets) CollectionFacetValues(ctx context.Context, collectionID int64, names []string) (map[string][]FacetValue, error) {
	out := map[string][]FacetValue{}
	if len(names) == 0 {
		return out, nil
	}
	// The rows themselves, not the effective view: its correlated look-up per row costs 10× on a large library;
	// the user's row wins here, as in the view.
	q := `SELECT f.document_id, f.name, f.source, f.value, f.norm FROM documents d
		JOIN document_facets f ON f.document_id = d.id
		WHERE d.collection_id = ? AND d.status = ? AND f.name IN (?` + strings.Repeat(",?", len(names)-1) + `)`
	args := []any{collectionID, StatusReady}
	for _, n := range names {
		args = append(args, n)
	}
	rows, err := k.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("facet values of collection %d: %w", collectionID, err)
	}
	defer rows.Close()
	type key struct {
		doc  int64
		name string
	}
	type row struct{ source, value, norm string }
	effective := map[key]row{}
	for rows.Next() {
		var k key
		var r row
		if err := rows.Scan(&k.doc, &k.name, &r.source, &r.value, &r.norm); err != nil {
			return nil, fmt.Errorf("facet values of collection %d: %w", collectionID, err)
		}
		if old, ok := effective[k]; !ok || r.source == FacetUser && old.source != FacetUser {
			effective[k] = r
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("facet values of collection %d: %w", collectionID, err)
	}
	byNorm := map[string]map[string]*FacetValue{}
	for k, r := range effective {
		if r.norm == "" {
			continue // cleared by the user
		}
		m := byNorm[k.name]
		if m == nil {
			m = map[string]*FacetValue{}
			byNorm[k.name] = m
		}
		v := m[r.norm]
		if v == nil {
			v = &FacetValue{Value: r.value, Norm: r.norm}
			m[r.norm] = v
		}
		v.Documents = append(v.Documents, k.doc)
	}
	for name, m := range byNorm {
		vs := make([]FacetValue, 0, len(m))
		for _, v := range m {
			slices.Sort(v.Documents)
			vs = append(vs, *v)
		}
		slices.SortFunc(vs, func(a, b FacetValue) int { return strings.Compare(a.Norm, b.Norm) })
		out[name] = vs
	}
	return out, nil
}
