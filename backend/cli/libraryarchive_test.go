package cli

import (
	"maps"

	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/model/modeltest"
)

// archivePDFs are the real PDFs the archive tests ingest.
var archivePDFs = []string{"pdf/real/hsaur3-Ch_analysis_of_variance.pdf", "pdf/real/blood_loss_report.pdf"}

// archiveLibrary makes a real library: the PDFs ingested by `proofglass add` (built-in embedder), a facet set by
// hand, and a conversation with a VRAG run (a scripted model) that searched, so its events name units.
func archiveLibrary(t *testing.T, data, collection string, pdfs ...string) {
	t.Helper()
	args := []string{"add", "--no-ocr", "--collection", collection}
	for _, p := range pdfs {
		args = append(args, fixture.Path(t, p))
	}
	if out, err := run(t, data, args...); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	k := openData(t, data)
	col, err := k.Docs.CollectionByName(context.Background(), collection)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := k.Docs.Documents(context.Background(), col.ID)
	k.Close()
	if err != nil || len(docs) != len(pdfs) {
		t.Fatalf("%d documents (%v), want %d", len(docs), err, len(pdfs))
	}
	if out, err := run(t, data, "documents", "facets", strconv.FormatInt(docs[0].ID, 10), "--set", "org=Acme Archive Ltd"); err != nil {
		t.Fatalf("facets --set: %v\n%s", err, out)
	}
}

// askOnce asks one VRAG question with a scripted model that searches for word and answers.
func askOnce(t *testing.T, data, collection, word string) {
	t.Helper()
	hs := httptest.NewServer(&modeltest.Server{Turns: []string{
		"<think>Look it up.</think>\n<search>" + word + "</search>",
		"<think>Found.</think>\n<answer>It is about " + word + ".</answer>",
	}})
	defer hs.Close()
	openAIEnv(t, hs.URL)
	out, err := cli(context.Background(), data, "ask", "What about "+word+"?", "--collection", collection, "--mode", "vrag",
		"--provider", "openai", "--model", "qwen2.5-vl-7b", "--crops", filepath.Join(t.TempDir(), "crops"))
	if err != nil {
		t.Fatalf("ask: %v\n%s", err, out)
	}
}

// libraryView describes a library without its ids: documents, facets, search results, conversations, runs and the
// pages their events name, each by document name and page.
func libraryView(t *testing.T, data string, queries ...string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, q := range queries {
		out, err := run(t, data, "search", q, "--json", "--k", "5")
		if err != nil {
			t.Fatalf("search %q: %v\n%s", q, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var l searchLine
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("search line %q: %v", line, err)
			}
			fmt.Fprintf(&b, "search %q: %s p%d %.6f\n", q, l.Doc, l.Page, l.Score)
		}
	}
	k := openData(t, data)
	defer k.Close()
	cols, err := k.Docs.Collections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docName := map[int64]string{}
	for _, c := range cols {
		docs, err := k.Docs.Documents(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "collection %s %s/%d: %d documents\n", c.Name, c.TextEmbedder, c.TextDim, len(docs))
		var ids []int64
		for _, d := range docs {
			docName[d.ID] = d.Name
			ids = append(ids, d.ID)
			fmt.Fprintf(&b, "  doc %s %s %s pages=%d\n", d.Name, d.SHA256[:12], d.Status, d.Pages)
		}
		fs, err := k.Facets.DocumentFacets(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			for _, f := range fs[d.ID] {
				fmt.Fprintf(&b, "  facet %s %s=%q (%s)\n", d.Name, f.Name, f.Value, f.Source)
			}
		}
	}
	convs, err := k.History.Conversations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(convs, func(a, b kb.Conversation) int { return int(a.CreatedAt.Sub(b.CreatedAt)) })
	for _, c := range convs {
		msgs, err := k.History.Messages(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "conversation %q\n", c.Title)
		for _, m := range msgs {
			fmt.Fprintf(&b, "  %s: %s (run: %v)\n", m.Role, m.Content, m.RunID != 0)
		}
	}
	runs, err := k.History.Runs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "run %q %s %s %q\n", r.Question, r.Mode, r.Status, r.Answer)
		evs, err := k.History.Events(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			var ev agent.Event
			if err := json.Unmarshal(e.Data, &ev); err != nil {
				t.Fatalf("event %d of run %d: %v", e.Seq, r.ID, err)
			}
			fmt.Fprintf(&b, "  event %d %s\n", e.Seq, e.Type)
			if ev.Results == nil {
				continue
			}
			for _, h := range ev.Results.Hits {
				uid, _ := strconv.ParseInt(h.UnitID, 10, 64)
				did, _ := strconv.ParseInt(h.DocumentID, 10, 64)
				us, err := k.Content.UnitsByID(ctx, []int64{uid})
				if err != nil || len(us) != 1 {
					t.Fatalf("run %q names unit %s: %v (%d found)", r.Question, h.UnitID, err, len(us))
				}
				u := us[uid]
				if u.DocumentID != did {
					t.Fatalf("run %q: hit unit %d is of document %d, the event says %d", r.Question, uid, u.DocumentID, did)
				}
				fmt.Fprintf(&b, "    hit %s p%d (unit's page %d of %s)\n", h.DocumentName, h.Page, u.Ordinal, docName[u.DocumentID])
			}
		}
	}
	return b.String()
}

func exportArchive(t *testing.T, data string, args ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "library.zip")
	out, err := run(t, data, append([]string{"library", "export", "--out", file, "--json"}, args...)...)
	if err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	return file
}

func importArchive(t *testing.T, data, file string, args ...string) map[string]any {
	t.Helper()
	out, err := run(t, data, append([]string{"library", "import", file, "--json"}, args...)...)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var rep map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil || rep["type"] != "result" {
		t.Fatalf("import's last line %q: %v", lines[len(lines)-1], err)
	}
	return rep
}

func added(rep map[string]any, table string) float64 {
	m, _ := rep["added"].(map[string]any)
	n, _ := m[table].(float64)
	return n
}

var archiveQueries = []string{"analysis of variance", "blood loss", "weight gain"}

// TestLibraryExportImportRoundTrip: a library exported and imported into a fresh data directory searches the same,
// has the same facets (the user's value included), conversations and runs, whose events name the same pages under
// the new ids; importing the same archive again adds nothing.
func TestLibraryExportImportRoundTrip(t *testing.T) {
	src := t.TempDir()
	archiveLibrary(t, src, "papers", archivePDFs...)
	askOnce(t, src, "papers", "variance")
	want := libraryView(t, src, archiveQueries...)
	if !strings.Contains(want, `org="Acme Archive Ltd" (user)`) || !strings.Contains(want, "hit ") {
		t.Fatalf("the source library lacks the user's facet or a run with hits:\n%s", want)
	}
	file := exportArchive(t, src, "--collection", "papers")

	dst := t.TempDir()
	rep := importArchive(t, dst, file)
	if added(rep, "documents") != 2 || added(rep, "runs") != 1 || added(rep, "conversations") != 1 {
		t.Fatalf("import report %v", rep)
	}
	if got := libraryView(t, dst, archiveQueries...); got != want {
		t.Fatalf("imported library differs from the exported one:\n--- exported\n%s\n--- imported\n%s", want, got)
	}
	rep = importArchive(t, dst, file)
	for _, table := range []string{"documents", "units", "vectors", "conversations", "runs", "messages", "run_events"} {
		if n := added(rep, table); n != 0 {
			t.Errorf("importing again added %v %s", n, table)
		}
	}
	if got := libraryView(t, dst, archiveQueries...); got != want {
		t.Fatalf("a second import changed the library:\n%s", got)
	}
}

// TestLibraryImportMerges: an archive imported into a library that holds one of its documents already keeps that
// document once, adds the other, and its run's events name the pages of the document that was there.
func TestLibraryImportMerges(t *testing.T) {
	src := t.TempDir()
	archiveLibrary(t, src, "papers", archivePDFs...)
	askOnce(t, src, "papers", "variance")
	file := exportArchive(t, src, "--all")

	dst := t.TempDir()
	if out, err := run(t, dst, "add", "--no-ocr", "--collection", "papers", fixture.Path(t, archivePDFs[0]),
		fixture.Path(t, "pdf/real/hsaur3-Ch_graphical_display.pdf")); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	rep := importArchive(t, dst, file)
	ex, _ := rep["existing"].(map[string]any)
	if added(rep, "documents") != 1 || ex["documents"] != 1.0 {
		t.Fatalf("import report %v, want 1 document added and 1 already there", rep)
	}
	got := libraryView(t, dst, archiveQueries...)
	if strings.Count(got, "  doc ") != 3 {
		t.Fatalf("want 3 documents after the merge:\n%s", got)
	}
	if !strings.Contains(got, "hit ") || strings.Count(got, "run ") != 1 {
		t.Fatalf("want the archive's run with its hits:\n%s", got)
	}
}

func TestLibraryExportFlags(t *testing.T) {
	data := t.TempDir()
	out := filepath.Join(t.TempDir(), "a.zip")
	if _, err := run(t, data, "library", "export", "--out", out); err == nil || !strings.Contains(err.Error(), "--all") {
		t.Fatalf("export without a choice: %v", err)
	}
	if _, err := run(t, data, "library", "export", "--collection", "nope", "--out", out); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("export of a missing collection: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a failed export left %s: %v", out, err)
	}
}

// TestLibraryArchiveKeepsAttachments: an e-mail and its attachments go out and back with their links and their
// headers' facets, remapped to the new ids; importing again links nothing twice.
func TestLibraryArchiveKeepsAttachments(t *testing.T) {
	src := t.TempDir()
	eml, err := filepath.Abs(filepath.Join("..", "ingest", "testdata", "formats", "message.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, src, "add", "--no-ocr", "--collection", "mail", eml); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	file := exportArchive(t, src, "--collection", "mail")
	dst := t.TempDir()
	if out, err := run(t, dst, "add", "--no-ocr", "--collection", "other", fixture.Path(t, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")); err != nil {
		t.Fatalf("add: %v\n%s", err, out) // so the imported ids differ from the exported ones
	}
	rep := importArchive(t, dst, file)
	if added(rep, "documents") != 3 || added(rep, "document_links") != 2 {
		t.Fatalf("import report %v", rep)
	}
	links := func(data string) map[string]string {
		k := openData(t, data)
		defer k.Close()
		ctx := context.Background()
		ds, err := k.Docs.Documents(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		names := map[int64]string{}
		for _, d := range ds {
			names[d.ID] = d.Name
		}
		out := map[string]string{}
		for _, d := range ds {
			ls, err := k.Docs.DocumentLinks(ctx, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range ls {
				if l.ParentID == d.ID {
					out[names[l.ChildID]] = names[l.ParentID] + " as " + l.Name
				}
			}
			if d.Name == "message.eml" {
				fs, _ := k.Facets.DocumentFacets(ctx, []int64{d.ID})
				for _, f := range fs[d.ID] {
					out["facet "+f.Name] = f.Value
				}
			}
		}
		return out
	}
	want, got := links(src), links(dst)
	if want["prices.csv"] != "message.eml as prices.csv" || want["facet from"] == "" {
		t.Fatalf("the source library's links and facets: %v", want)
	}
	if !maps.Equal(got, want) {
		t.Errorf("imported links and facets %v, exported %v", got, want)
	}
	if rep := importArchive(t, dst, file); added(rep, "document_links") != 0 {
		t.Errorf("importing again added links: %v", rep)
	}
}
