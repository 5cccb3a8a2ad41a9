package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"proofglass/backend/kb"
)

// DocRefs names documents by id or by file name, as `--doc 3 --doc report.pdf` and `"documents": [3, "report.pdf"]`
// do. In JSON each element may be a number or a string.
type DocRefs []string

// UnmarshalJSON accepts an array of document ids (numbers) and names (strings).
func (d *DocRefs) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("documents: want an array of ids and names: %w", err)
	}
	out := make(DocRefs, 0, len(raw))
	for _, r := range raw {
		var s string
		if err := json.Unmarshal(r, &s); err == nil {
			out = append(out, s)
			continue
		}
		var n int64
		if err := json.Unmarshal(r, &n); err != nil {
			return fmt.Errorf("documents: %s is neither an id nor a name", r)
		}
		out = append(out, strconv.FormatInt(n, 10))
	}
	*d = out
	return nil
}

// maxDocRefs bounds one scope: it becomes an SQL IN list and arrives from HTTP clients.
const maxDocRefs = 1000

// ResolveDocuments turns references into document ids. A reference of digits only is an id; anything else is a
// file name, matching every document of that name (in collection, when one is named). A reference that matches
// nothing is an error naming it, so a typo never widens or empties a scope silently.
func ResolveDocuments(ctx context.Context, k *kb.KB, collection string, refs []string) ([]int64, error) {
	if len(refs) > maxDocRefs {
		return nil, fmt.Errorf("documents: %d named, at most %d", len(refs), maxDocRefs)
	}
	var collID int64
	if collection != "" {
		c, err := k.Docs.CollectionByName(ctx, collection)
		if err != nil {
			return nil, fmt.Errorf("collection %q: %w", collection, err)
		}
		collID = c.ID
	}
	seen := map[int64]bool{}
	var out []int64
	add := func(id int64) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, ref := range refs {
		ref = strings.TrimSpace(ref)
		if ref == "" {
			return nil, errors.New("documents: empty document reference")
		}
		if id, err := strconv.ParseInt(ref, 10, 64); err == nil && id > 0 {
			d, err := k.Docs.Document(ctx, id)
			if errors.Is(err, kb.ErrNotFound) || (err == nil && collID != 0 && d.CollectionID != collID) {
				return nil, fmt.Errorf("document %d: %w", id, kb.ErrNotFound)
			}
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", id, err)
			}
			add(id)
			continue
		}
		ids, err := k.Docs.DocumentIDsNamed(ctx, ref, collID)
		if err != nil {
			return nil, fmt.Errorf("document %q: %w", ref, err)
		}
		for _, id := range ids {
			add(id)
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("document %q: %w", ref, kb.ErrNotFound)
		}
	}
	return out, nil
}
