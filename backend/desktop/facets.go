package desktop

import (
	"fmt"

	"proofglass/backend/facets"
)

// DocumentFacets is what the library shows of a document's facets: their values, which the user set, and the
// kinds a picker offers.
type DocumentFacets struct {
	DocumentID int64           `json:"document_id"`
	Facets     facets.Facets   `json:"facets"`
	User       map[string]bool `json:"user"`  // facets the user set (their value wins over extraction)
	Kinds      []string        `json:"kinds"` // the kinds extraction gives
	// Links are the documents tied to this one: an e-mail's attachments, or the e-mails it is attached to.
	Links []LinkedDocument `json:"links"`
}

// LinkedDocument is a document tied to another: Attachment says it is an attachment of the other (else the other
// is attached to it); Name is what the window shows (an attachment's name in its message, a message's name).
type LinkedDocument struct {
	DocumentID int64  `json:"document_id"`
	Name       string `json:"name"`
	Attachment bool   `json:"attachment"`
}

// maxFacetBytes bounds a facet value or a where filter from the window.
const maxFacetBytes = 1 << 10

func checkFacet(name, value string) error {
	if err := checkName("facet", name); err != nil {
		return err
	}
	if len(value) > maxFacetBytes || hasControl(value) {
		return fmt.Errorf("facet %s: at most %d bytes, no control characters", clipArg(name), maxFacetBytes)
	}
	return nil
}

func (s *LibraryService) documentFacets(id int64) (DocumentFacets, error) {
	f, user, err := facets.Of(s.c.ctx, s.c.lib.KB, id)
	if err != nil {
		return DocumentFacets{}, err
	}
	links, err := s.c.lib.KB.Docs.DocumentLinks(s.c.ctx, id)
	if err != nil {
		return DocumentFacets{}, err
	}
	out := DocumentFacets{DocumentID: id, Facets: f, User: user, Kinds: facets.Kinds, Links: []LinkedDocument{}}
	for _, l := range links {
		if l.ParentID == id {
			out.Links = append(out.Links, LinkedDocument{DocumentID: l.ChildID, Name: l.Name, Attachment: true})
			continue
		}
		parent, err := s.c.lib.KB.Docs.Document(s.c.ctx, l.ParentID)
		if err != nil {
			return DocumentFacets{}, err
		}
		out.Links = append(out.Links, LinkedDocument{DocumentID: l.ParentID, Name: parent.Name})
	}
	return out, nil
}

// Facets returns a document's facets (title, organisation, kind, year, quarter, date).
func (s *LibraryService) Facets(documentID int64) (DocumentFacets, error) {
	if err := checkID("document", documentID); err != nil {
		return DocumentFacets{}, err
	}
	if err := s.c.ready(); err != nil {
		return DocumentFacets{}, err
	}
	if _, err := s.c.lib.KB.Docs.Document(s.c.ctx, documentID); err != nil {
		return DocumentFacets{}, err
	}
	return s.documentFacets(documentID)
}

// SetFacet sets one facet of a document to the user's value ("" clears it); it wins over extraction and survives
// re-ingest.
func (s *LibraryService) SetFacet(documentID int64, name, value string) (DocumentFacets, error) {
	if err := checkID("document", documentID); err != nil {
		return DocumentFacets{}, err
	}
	if err := checkFacet(name, value); err != nil {
		return DocumentFacets{}, err
	}
	if err := s.c.ready(); err != nil {
		return DocumentFacets{}, err
	}
	if err := facets.SetUser(s.c.ctx, s.c.lib.KB, documentID, name, value); err != nil {
		return DocumentFacets{}, err
	}
	return s.documentFacets(documentID)
}

// ResetFacet forgets the user's value of a facet, so the extracted one shows again.
func (s *LibraryService) ResetFacet(documentID int64, name string) (DocumentFacets, error) {
	if err := checkID("document", documentID); err != nil {
		return DocumentFacets{}, err
	}
	if err := checkFacet(name, ""); err != nil {
		return DocumentFacets{}, err
	}
	if err := s.c.ready(); err != nil {
		return DocumentFacets{}, err
	}
	if err := facets.Reset(s.c.ctx, s.c.lib.KB, documentID, name); err != nil {
		return DocumentFacets{}, err
	}
	return s.documentFacets(documentID)
}

// FacetGroup is a facet the library offers to filter a collection by: its values (most documents first; years
// newest first), each with the documents that have it.
type FacetGroup struct {
	Name   string        `json:"name"`
	Values []FacetChoice `json:"values"`
	More   int           `json:"more"` // values left out (past maxFacetChoices)
}

// FacetChoice is one value of a FacetGroup.
type FacetChoice struct {
	Value     string  `json:"value"`
	Documents []int64 `json:"documents"`
}

// maxFacetChoices bounds the values of each facet the library offers.
const maxFacetChoices = 12

// CollectionFacets lists the kinds, years and organisations of a collection's ready documents, for the library to
// filter its documents by.
func (s *LibraryService) CollectionFacets(collectionID int64) ([]FacetGroup, error) {
	if err := checkID("collection", collectionID); err != nil {
		return nil, err
	}
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	if _, err := s.c.lib.KB.Docs.Collection(s.c.ctx, collectionID); err != nil {
		return nil, err
	}
	groups, err := facets.Browse(s.c.ctx, s.c.lib.KB, collectionID)
	if err != nil {
		return nil, err
	}
	out := []FacetGroup{}
	for _, g := range groups {
		fg := FacetGroup{Name: g.Name, More: max(0, len(g.Values)-maxFacetChoices)}
		for _, v := range g.Values[:min(len(g.Values), maxFacetChoices)] {
			fg.Values = append(fg.Values, FacetChoice{Value: v.Value, Documents: v.Documents})
		}
		out = append(out, fg)
	}
	return out, nil
}
