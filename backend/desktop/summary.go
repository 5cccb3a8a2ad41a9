package desktop

import (
	"proofglass/backend/library"
	"proofglass/backend/summary"
)

// DocumentGlance is a document at a glance for the library view: its outline (sections, tables, figures, key
// figures with pages and regions), read offline, with the stored summary when one was made (Cached set).
func (s *LibraryService) DocumentGlance(documentID int64) (summary.Summary, error) {
	c := s.c
	if err := checkID("document", documentID); err != nil {
		return summary.Summary{}, err
	}
	if err := c.ready(); err != nil {
		return summary.Summary{}, err
	}
	sum, _, err := c.lib.StoredSummary(c.ctx, documentID)
	return sum, err
}

// SummarizeDocument asks the configured chat model for a document's summary, each figure checked against the page
// it cites; a stored one comes back at once unless refresh.
func (s *LibraryService) SummarizeDocument(documentID int64, refresh bool) (summary.Summary, error) {
	c := s.c
	if err := checkID("document", documentID); err != nil {
		return summary.Summary{}, err
	}
	if err := c.ready(); err != nil {
		return summary.Summary{}, err
	}
	return c.lib.Summarize(c.ctx, documentID, library.SummaryRequest{Refresh: refresh})
}
