package desktop

import (
	"path/filepath"
	"slices"
	"testing"

	"proofglass/backend/kb"
)

// An e-mail added through the window becomes three documents, and each one's facets panel names the others: the
// message its two attachments, each attachment the message.
func TestFacetsNameAnEmailsAttachments(t *testing.T) {
	d, _ := start(t)
	eml, err := filepath.Abs(filepath.Join("..", "ingest", "testdata", "formats", "message.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Library.AddPaths("mail", []string{eml}); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int64{}
	eventually(t, "the message and its two attachments ready", func() bool {
		cs, err := d.Library.Collections()
		if err != nil || len(cs) != 1 {
			return false
		}
		docs, err := d.Library.Documents(cs[0].ID)
		if err != nil {
			return false
		}
		ready := 0
		for _, doc := range docs {
			byName[doc.Name] = doc.ID
			if doc.Status == kb.StatusReady {
				ready++
			}
		}
		return ready == 3
	})
	f, err := d.Library.Facets(byName["message.eml"])
	if err != nil {
		t.Fatal(err)
	}
	want := []LinkedDocument{
		{DocumentID: byName["prices.csv"], Name: "prices.csv", Attachment: true},
		{DocumentID: byName["review.docx"], Name: "review.docx", Attachment: true},
	}
	if !slices.Equal(f.Links, want) || f.Facets.From == "" {
		t.Errorf("the message's links %+v (from %q), want %+v", f.Links, f.Facets.From, want)
	}
	f, err = d.Library.Facets(byName["review.docx"])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Links, []LinkedDocument{{DocumentID: byName["message.eml"], Name: "message.eml"}}) {
		t.Errorf("the attachment's links %+v", f.Links)
	}
}
