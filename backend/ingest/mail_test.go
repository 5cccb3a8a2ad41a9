package ingest

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"proofglass/backend/facets"
	"proofglass/backend/kb"
	"proofglass/backend/search"
)

// TestMailIngest adds a message with two attachments and a mailbox of three messages: each message is a ready
// document whose facets are its headers and whose page holds its decoded body (not the HTML's script); each
// attachment is a ready document of its own kind, linked to its message under its name; a mailbox is no document
// of its own; adding both again adds nothing and links nothing twice.
func TestMailIngest(t *testing.T) {
	in, k := newIngester(t, Options{NoOCR: true})
	ctx := context.Background()
	dir := filepath.Join("testdata", "formats")
	paths := []string{filepath.Join(dir, "message.eml"), filepath.Join(dir, "mailbox.mbox")}
	res, err := in.Add(ctx, "mail", paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Result{}
	var names []string
	for _, r := range res {
		if r.Error != "" || r.Document.Status != kb.StatusReady {
			t.Errorf("%s: %s %q", r.Path, r.Document.Status, r.Error)
		}
		byName[r.Document.Name] = r
		names = append(names, r.Document.Name)
	}
	want := []string{"message.eml", "review.docx", "prices.csv", "mailbox 1 - Horaires.eml", "mailbox 2 - 年度报告.eml",
		"mailbox 3 - Stations list.eml", "stations.tsv"}
	if !slices.Equal(names, want) {
		t.Fatalf("documents %q, want %q (in order, each attachment after its message)", names, want)
	}
	for _, r := range res {
		if strings.HasSuffix(r.Document.Name, ".mbox") {
			t.Errorf("the mailbox became a document: %+v", r.Document)
		}
	}
	abs, _ := filepath.Abs(filepath.Join(dir, "message.eml"))
	if p := byName["prices.csv"].Path; p != abs+"#prices.csv" {
		t.Errorf("attachment's path %q: want the message's, with the attachment's name", p)
	}

	text := func(name string) string {
		var b strings.Builder
		for _, u := range units(t, k, byName[name].Document.ID) {
			b.WriteString(u.Text + "\n")
		}
		return b.String()
	}
	for name, wants := range map[string][]string{
		"message.eml":                   {"Q3 figures for the board", "Ana Ruiz", "board@example.org", "wombateml", "4.2%", "review.docx", "prices.csv"},
		"mailbox 1 - Horaires.eml":      {"café wombatmbox ouvre à 8 h", "From now on"},
		"mailbox 2 - 年度报告.eml":          {"年度报告", "wombatzhmail", "李明"},
		"mailbox 3 - Stations list.eml": {"The list is attached", "stations.tsv"},
		"review.docx":                   {"wombatdocx"},
		"prices.csv":                    {"wombatcsv"},
		"stations.tsv":                  {"wombattsv"},
	} {
		got := text(name)
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: page text lacks %q:\n%s", name, w, got)
			}
		}
	}
	if got := text("mailbox 2 - 年度报告.eml"); strings.Contains(got, "alert") {
		t.Errorf("the HTML body's script was laid out: %q", got)
	}

	f, _, err := facets.Of(ctx, k, byName["message.eml"].Document.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Title != "Q3 figures for the board" || !strings.Contains(f.From, "ana@example.org") ||
		!strings.Contains(f.To, "board@example.org") || !strings.Contains(f.To, "bo@example.org") || f.Date != "2023-11-14" || f.Year != "2023" {
		t.Errorf("message facets %+v", f)
	}
	f, _, err = facets.Of(ctx, k, byName["mailbox 2 - 年度报告.eml"].Document.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Title != "年度报告" || !strings.Contains(f.From, "李明") || f.Date != "2023-11-15" {
		t.Errorf("mailbox message facets %+v", f)
	}
	conds, err := facets.ParseWhere("from=claire")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := k.Facets.DocumentsWhere(ctx, conds)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || !ids[byName["mailbox 1 - Horaires.eml"].Document.ID] {
		t.Errorf("--where from=claire: %v", ids)
	}

	links, err := k.Docs.DocumentLinks(ctx, byName["message.eml"].Document.ID)
	if err != nil {
		t.Fatal(err)
	}
	msg := byName["message.eml"].Document.ID
	wantLinks := []kb.DocumentLink{
		{ParentID: msg, ChildID: byName["prices.csv"].Document.ID, Kind: kb.LinkAttachment, Name: "prices.csv"},
		{ParentID: msg, ChildID: byName["review.docx"].Document.ID, Kind: kb.LinkAttachment, Name: "review.docx"},
	}
	if !slices.Equal(links, wantLinks) {
		t.Errorf("links %+v, want %+v", links, wantLinks)
	}
	links, err = k.Docs.DocumentLinks(ctx, byName["stations.tsv"].Document.ID)
	if err != nil || len(links) != 1 || links[0].ParentID != byName["mailbox 3 - Stations list.eml"].Document.ID {
		t.Errorf("stations.tsv's links %+v (%v): want its message", links, err)
	}

	s := search.New(k, search.Options{})
	hits, err := s.Search(ctx, search.Query{Text: "wombatmbox", K: 3, Mode: search.BM25})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits.Hits) == 0 || hits.Hits[0].DocumentID != byName["mailbox 1 - Horaires.eml"].Document.ID {
		t.Errorf("search wombatmbox: %+v", hits.Hits)
	}

	// Again: everything exists, nothing new, no second link.
	count := func() int {
		ds, err := k.Docs.Documents(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(ds)
	}
	before := count()
	res, err = in.Add(ctx, "mail", paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(); n != before {
		t.Errorf("adding again made %d documents, had %d", n, before)
	}
	for _, r := range res {
		if !r.Existed {
			t.Errorf("again: %s not reported as existing", r.Document.Name)
		}
	}
	if links, _ := k.Docs.DocumentLinks(ctx, msg); len(links) != 2 {
		t.Errorf("links after adding again: %+v", links)
	}
}
