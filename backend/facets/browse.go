package facets

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"proofglass/backend/kb"
)

// BrowseNames are the facets a collection is browsed by, in order.
var BrowseNames = []string{Kind, Year, Org}

// Group is one facet of a collection with its values: most documents first, years newest first.
type Group struct {
	Name   string
	Values []kb.FacetValue
}

// Browse lists the kinds, years and organisations of a collection's ready documents, each value with its documents.
func Browse(ctx context.Context, k *kb.KB, collectionID int64) ([]Group, error) {
	vals, err := k.Facets.CollectionFacetValues(ctx, collectionID, BrowseNames)
	if err != nil {
		return nil, err
	}
	var out []Group
	for _, name := range BrowseNames {
		vs := vals[name]
		if len(vs) == 0 {
			continue
		}
		slices.SortStableFunc(vs, func(a, b kb.FacetValue) int {
			if name == Year {
				return strings.Compare(b.Norm, a.Norm)
			}
			return cmp.Compare(len(b.Documents), len(a.Documents))
		})
		out = append(out, Group{Name: name, Values: vs})
	}
	return out, nil
}
