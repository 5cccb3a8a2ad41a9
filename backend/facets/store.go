package facets

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
)

// readPages is how many leading pages extraction reads: the cover and front matter, and enough pages for running
// headers and footers to repeat.
const readPages = 30

// SourceOf reads what extraction needs of a stored document: its name, its PDF metadata and its leading pages.
func SourceOf(ctx context.Context, k *kb.KB, d kb.Document) (Source, error) {
	var meta struct {
		PDF   map[string]string `json:"pdf"`
		Taken string            `json:"taken"` // ingest.Meta's (facets cannot import ingest)
	}
	_ = json.Unmarshal([]byte(d.Meta), &meta) // no metadata from a broken meta column
	units, err := k.Facets.LeadingUnitTexts(ctx, d.ID, readPages)
	if err != nil {
		return Source{}, fmt.Errorf("facets of %s: %w", d.Name, err)
	}
	src := Source{FileName: d.Name, Info: meta.PDF, Taken: meta.Taken}
	if src.Taken == "" && d.MIME == "image/jpeg" && kb.ValidHash(d.Blob) {
		// A JPEG ingested before dates were kept (only JPEGs carry the EXIF date, so no other file is read again).
		src.Taken = takenOf(k, d.Blob)
	}
	for _, u := range units {
		src.Pages = append(src.Pages, u.Text)
	}
	return src, nil
}

// takenOf reads the date a stored JPEG's EXIF gives; "" when it gives none or cannot be read.
func takenOf(k *kb.KB, blob string) string {
	f, err := k.Blobs.Open(blob)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, imagefile.TakenHeadBytes)
	n, _ := io.ReadFull(f, head)
	return imagefile.Taken(head[:n])
}

// Refresh extracts a document's facets again and stores them as its extracted facets; the user's values stay.
func Refresh(ctx context.Context, k *kb.KB, docID int64) (Facets, error) {
	d, err := k.Docs.Document(ctx, docID)
	if err != nil {
		return Facets{}, err
	}
	src, err := SourceOf(ctx, k, d)
	if err != nil {
		return Facets{}, err
	}
	f := Extract(src)
	if err := k.Facets.ReplaceExtractedFacets(ctx, docID, f.Rows(kb.FacetExtracted)); err != nil {
		return Facets{}, err
	}
	return f, nil
}

// RefreshMissing extracts the facets of the ready documents that have none (a library made before facets), or of
// every ready document when all is set (after an extraction change), and returns how many it did.
func RefreshMissing(ctx context.Context, k *kb.KB, all bool) (int, error) {
	ids, err := k.Facets.DocumentsWithoutFacets(ctx, all)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		if _, err := Refresh(ctx, k, id); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}

// Of returns the effective facets of a document (the user's where set) and which of them the user set.
func Of(ctx context.Context, k *kb.KB, docID int64) (Facets, map[string]bool, error) {
	rows, err := k.Facets.DocumentFacets(ctx, []int64{docID})
	if err != nil {
		return Facets{}, nil, err
	}
	user := map[string]bool{}
	for _, r := range rows[docID] {
		if r.Source == kb.FacetUser {
			user[r.Name] = true
		}
	}
	return FromRows(rows[docID]), user, nil
}

// SetUser records the user's values: a value wins over extraction and outlives re-ingest; "" clears the facet,
// and Reset forgets the user's value.
func SetUser(ctx context.Context, k *kb.KB, docID int64, name, value string) error {
	if !validName(name) {
		return fmt.Errorf("facet %q: unknown (want one of %s)", name, strings.Join(Names, ", "))
	}
	v, err := normalise(name, value)
	if err != nil {
		return err
	}
	if _, err := k.Docs.Document(ctx, docID); err != nil {
		return err
	}
	return k.Facets.SetUserFacet(ctx, docID, kb.Facet{Name: name, Value: v, Source: kb.FacetUser, Norm: Fold(name, v)})
}

// Reset forgets the user's value of a facet, so the extracted one shows again.
func Reset(ctx context.Context, k *kb.KB, docID int64, name string) error {
	if !validName(name) {
		return fmt.Errorf("facet %q: unknown (want one of %s)", name, strings.Join(Names, ", "))
	}
	return k.Facets.ResetUserFacet(ctx, docID, name)
}

func validName(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// ScopeDocuments resolves a where filter (ParseWhere's syntax) to the documents that pass it, narrowed to docs when
// docs is not empty: the scope of an agent run, a chat or an MCP ask. It fails when no document passes, naming the
// filter, rather than run unscoped.
func ScopeDocuments(ctx context.Context, k *kb.KB, where string, docs []int64) ([]int64, error) {
	f, err := ParseWhere(where)
	if err != nil || len(f) == 0 {
		return docs, err
	}
	pass, err := k.Facets.DocumentsWhere(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []int64
	if len(docs) > 0 {
		for _, d := range docs {
			if pass[d] {
				out = append(out, d)
			}
		}
	} else {
		for d := range pass {
			out = append(out, d)
		}
		slices.Sort(out)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("where %q: no document passes the filter", where)
	}
	return out, nil
}
