package desktop

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/sample"
)

// samplePDF writes the bundled Gettysburg Address (a text PDF) into a fresh folder and returns its path.
func samplePDF(t *testing.T) string {
	t.Helper()
	paths, err := sample.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if filepath.Base(p) == "gettysburg-address.pdf" {
			return p
		}
	}
	t.Fatal("no gettysburg-address.pdf among the samples")
	return ""
}

func stageOf(d any) (ingest.Progress, bool) {
	p, ok := d.(ingest.Progress)
	return p, ok
}

// addAndWait adds a real PDF through the bound method and waits for its ingest to end.
func addAndWait(t *testing.T, d *Desktop, ui *fakeUI, collection, path string) ingest.Progress {
	t.Helper()
	if err := d.Library.AddPaths(collection, []string{path}); err != nil {
		t.Fatal(err)
	}
	end := ui.waitFor(t, eventIngest, func(e any) bool {
		p, _ := stageOf(e)
		return p.Stage == ingest.StageDone || p.Stage == ingest.StageFailed
	})
	p, _ := stageOf(end)
	if p.Stage != ingest.StageDone {
		t.Fatalf("ingest ended %s: %s", p.Stage, p.Error)
	}
	return p
}

// A PDF added through the window is ingested in the background with progress events, then found everywhere the
// window looks: collections, documents, pages, its cover and page image, search; deleting it removes it.
func TestLibraryAddBrowseSearchDelete(t *testing.T) {
	d, ui := start(t)
	lib := d.Library
	pdfPath := samplePDF(t)
	done := addAndWait(t, d, ui, "papers", pdfPath)
	if done.Status != kb.StatusReady || done.DocumentID <= 0 {
		t.Errorf("done event = %+v, want a ready document", done)
	}
	stages := map[string]bool{}
	for _, e := range ui.named(eventIngest) {
		p, ok := stageOf(e)
		if !ok {
			t.Fatalf("ingest event of type %T", e)
		}
		stages[p.Stage] = true
	}
	if !stages[ingest.StageStart] {
		t.Errorf("no start event among %v", stages)
	}

	cs, err := lib.Collections()
	if err != nil || len(cs) != 1 || cs[0].Name != "papers" || cs[0].Documents != 1 {
		t.Fatalf("Collections = %+v, %v", cs, err)
	}
	st, err := lib.Status()
	if err != nil || st.Collections != 1 || st.Documents != 1 || st.SchemaVersion == 0 || st.DataDir == "" {
		t.Errorf("Status = %+v, %v", st, err)
	}
	docs, err := lib.Documents(cs[0].ID)
	if err != nil || len(docs) != 1 || docs[0].Name != "gettysburg-address.pdf" || docs[0].Status != kb.StatusReady {
		t.Fatalf("Documents = %+v, %v", docs, err)
	}
	doc := docs[0]
	pages, err := lib.Pages(doc.ID)
	if err != nil || len(pages) != doc.Pages || len(pages) == 0 || pages[0].Ordinal != 1 || pages[0].DocumentID != doc.ID {
		t.Fatalf("Pages = %+v, %v (document has %d)", pages, err, doc.Pages)
	}
	cover, err := lib.Cover(doc.ID)
	if err != nil || cover == nil || cover.ID != pages[0].ID {
		t.Errorf("Cover = %+v, %v, want page %d", cover, err, pages[0].ID)
	}
	img, err := lib.PageImage(pages[0].ID, 200)
	if err != nil || !strings.HasPrefix(img, "data:image/") {
		t.Errorf("PageImage = %.40q, %v", img, err)
	}
	if pages[0].Thumb != "" {
		if b, err := lib.Blob(pages[0].Thumb); err != nil || !strings.HasPrefix(b, "data:image/") {
			t.Errorf("Blob(thumb) = %.40q, %v", b, err)
		}
	}
	// The JSON the window reads keeps its field names.
	j, _ := json.Marshal(pages[0])
	for _, f := range []string{`"id"`, `"document_id"`, `"ordinal"`, `"kind"`, `"text_source"`} {
		if !strings.Contains(string(j), f) {
			t.Errorf("page JSON %s lacks %s", j, f)
		}
	}

	res, err := lib.Search("score and seven years ago", "papers", 5)
	if err != nil || len(res.Hits) == 0 || res.Hits[0].DocumentID != doc.ID {
		t.Fatalf("Search = %+v, %v", res, err)
	}
	if res, err := lib.Search("score and seven years ago", "other", 5); err == nil || len(res.Hits) != 0 {
		t.Errorf("Search in a collection that does not exist = %+v, %v, want an error", res, err)
	}

	// Facets: extracted at ingest, corrected by the user, filtered on.
	fs, err := lib.Facets(doc.ID)
	if err != nil || fs.Facets.Title != "The Gettysburg Address" || len(fs.Kinds) == 0 {
		t.Errorf("Facets = %+v, %v", fs, err)
	}
	if fs, err = lib.SetFacet(doc.ID, "org", "Library of Congress"); err != nil || fs.Facets.Org != "Library of Congress" || !fs.User["org"] {
		t.Errorf("SetFacet = %+v, %v", fs, err)
	}
	if res, err := lib.SearchWhere("score and seven years ago", "papers", "org=congress", 5); err != nil || len(res.Hits) == 0 {
		t.Errorf("SearchWhere org=congress = %+v, %v", res, err)
	}
	if res, err := lib.SearchWhere("score and seven years ago", "papers", "org=acme", 5); err != nil || len(res.Hits) != 0 {
		t.Errorf("SearchWhere org=acme = %+v, %v, want no hits", res, err)
	}
	// The collection's facets to browse: the organisation the user set, with its document.
	groups, err := lib.CollectionFacets(cs[0].ID)
	var orgs []FacetChoice
	for _, g := range groups {
		if g.Name == "org" {
			orgs = g.Values
		}
	}
	if err != nil || len(orgs) != 1 || orgs[0].Value != "Library of Congress" || !slices.Equal(orgs[0].Documents, []int64{doc.ID}) {
		t.Errorf("CollectionFacets = %+v, %v", groups, err)
	}
	if fs, err = lib.ResetFacet(doc.ID, "org"); err != nil || fs.User["org"] {
		t.Errorf("ResetFacet = %+v, %v", fs, err)
	}

	if err := lib.DeleteDocument(doc.ID); err != nil {
		t.Fatal(err)
	}
	if docs, err := lib.Documents(cs[0].ID); err != nil || len(docs) != 0 {
		t.Errorf("Documents after delete = %+v, %v", docs, err)
	}
	if res, err := lib.Search("score and seven years ago", "", 5); err != nil || len(res.Hits) != 0 {
		t.Errorf("Search after delete = %+v, %v", res, err)
	}
	if c, err := lib.Cover(doc.ID); err != nil || c != nil {
		t.Errorf("Cover after delete = %+v, %v, want nil", c, err)
	}
}

// A file that cannot be ingested ends in a failed progress event; retrying a missing document reports it too.
func TestLibraryFailuresArriveAsEvents(t *testing.T) {
	d, ui := start(t)
	missing := filepath.Join(t.TempDir(), "gone.pdf")
	if err := d.Library.AddPaths("papers", []string{missing}); err != nil {
		t.Fatal(err)
	}
	ui.waitFor(t, eventIngest, func(e any) bool {
		p, _ := stageOf(e)
		return p.Stage == ingest.StageFailed && p.Error != ""
	})
	if err := d.Library.RetryDocument(424242, ""); err != nil {
		t.Fatal(err)
	}
	ui.waitFor(t, eventIngest, func(e any) bool {
		p, _ := stageOf(e)
		return p.Stage == ingest.StageFailed && p.DocumentID == 424242
	})
}

// The sample library lands in its own collection, and a second start in the same data directory keeps it.
func TestLibrarySampleLibrary(t *testing.T) {
	dir := t.TempDir()
	d, ui := startIn(t, dir)
	if err := d.Library.AddSampleLibrary(""); err != nil {
		t.Fatal(err)
	}
	want := len(sample.Names())
	seen := map[string]bool{}
	ui.waitFor(t, eventIngest, func(e any) bool {
		p, _ := stageOf(e)
		if p.Stage == ingest.StageDone || p.Stage == ingest.StageFailed {
			seen[p.Name] = true
		}
		return len(seen) == want
	})
	cs, err := d.Library.Collections()
	if err != nil || len(cs) != 1 || cs[0].Name != sample.Collection {
		t.Fatalf("Collections = %+v, %v", cs, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "samples", "gettysburg-address.pdf")); err != nil {
		t.Errorf("the samples were not extracted into the data directory: %v", err)
	}
}

func TestLibraryCollectionsAndDialogs(t *testing.T) {
	d, ui := start(t)
	lib := d.Library
	for _, bad := range []string{"", "   ", "a\nb", strings.Repeat("x", 300), "\xff"} {
		if _, err := lib.CreateCollection(bad); err == nil {
			t.Errorf("CreateCollection(%q) accepted", bad)
		}
	}
	a, err := lib.CreateCollection("papers")
	if err != nil || a.ID <= 0 || a.Name != "papers" {
		t.Fatalf("CreateCollection = %+v, %v", a, err)
	}
	if b, err := lib.CreateCollection("papers"); err != nil || b.ID != a.ID {
		t.Errorf("CreateCollection again = %+v, %v, want collection %d", b, err, a.ID)
	}
	if docs, err := lib.Documents(a.ID); err != nil || len(docs) != 0 {
		t.Errorf("Documents of an empty collection = %+v, %v", docs, err)
	}

	ui.files, ui.folder = []string{"/home/u/a.pdf", "/home/u/b.png"}, "/home/u/scans"
	if got, err := lib.PickFiles("添加文档", nil); err != nil || len(got) != 2 || got[1] != "/home/u/b.png" {
		t.Errorf("PickFiles = %q, %v", got, err)
	}
	if got, err := lib.PickFolder("Add a folder\n\x1b[2J"); err != nil || got != "/home/u/scans" {
		t.Errorf("PickFolder = %q, %v", got, err)
	}
	if _, err := lib.PickFiles("", nil); err != nil {
		t.Fatal(err)
	}
	// The window's title, cleaned; none gives the English one.
	if len(ui.titles) != 3 || ui.titles[0] != "添加文档" || ui.titles[1] != "Add a folder[2J" || ui.titles[2] != "Add documents" {
		t.Errorf("dialog titles = %q", ui.titles)
	}
}

// The add dialog offers exactly what ingest reads: every extension of ingest.Formats, first all together, then each
// format, then all files.
func TestAddDialogOffersIngestFormats(t *testing.T) {
	d, ui := start(t)
	if _, err := d.Library.PickFiles("Add", nil); err != nil {
		t.Fatal(err)
	}
	fs := ui.filters[0]
	if len(fs) != len(ingest.Formats)+2 || fs[len(fs)-1].Pattern != "*" {
		t.Fatalf("filters = %+v", fs)
	}
	var all []string
	for i, f := range ingest.Formats {
		var pats []string
		for _, e := range f.Extensions {
			pats = append(pats, "*"+e)
		}
		all = append(all, pats...)
		if got := fs[i+1]; got.DisplayName != f.Name || got.Pattern != strings.Join(pats, ";") {
			t.Errorf("filter %d = %+v, want %s: %s", i+1, got, f.Name, strings.Join(pats, ";"))
		}
	}
	if fs[0].Pattern != strings.Join(all, ";") || !strings.Contains(fs[0].Pattern, "*.m4v") {
		t.Errorf("the first filter %q is not every format ingest reads", fs[0].Pattern)
	}
}

// The window names the file types in its language; a name it leaves out, or one that cleans to nothing, stays English.
func TestAddDialogFileTypesInTheWindowsLanguage(t *testing.T) {
	d, ui := start(t)
	names := map[string]string{"all": "文档、图片和视频", "pdf": "PDF 文档", "image": "图片\n\x1b[2J", "video": " ", "any": "所有文件"}
	if _, err := d.Library.PickFiles("添加文档", names); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	fs := ui.filters[0]
	got["all"], got["any"] = fs[0].DisplayName, fs[len(fs)-1].DisplayName
	for i, f := range ingest.Formats {
		got[f.ID] = fs[i+1].DisplayName
	}
	want := map[string]string{"all": "文档、图片和视频", "pdf": "PDF 文档", "image": "图片[2J", "video": "Videos", "any": "所有文件"}
	for _, f := range ingest.Formats {
		if _, named := want[f.ID]; !named {
			want[f.ID] = f.Name // not named by the window: English
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("filter names %q, want %q", got, want)
	}
	many := map[string]string{}
	for i := range maxFilterNames + 1 {
		many[strconv.Itoa(i)] = "x"
	}
	if _, err := d.Library.PickFiles("", many); err == nil {
		t.Error("PickFiles took more names than there are file types")
	}
}

// Every bound argument is attacker input: malformed ones are refused before they reach the library, and nothing is
// started for them.
func TestLibraryRejectsBadArguments(t *testing.T) {
	d, ui := start(t)
	lib := d.Library
	checks := map[string]error{
		"relative path":        lib.AddPaths("papers", []string{"a.pdf"}),
		"NUL in path":          lib.AddPaths("papers", []string{"/a\x00b.pdf"}),
		"no paths":             lib.AddPaths("papers", nil),
		"too many paths":       lib.AddPaths("papers", make([]string, maxPaths+1)),
		"control char in name": lib.AddPaths("a\nb", []string{"/a.pdf"}),
		"sample collection":    lib.AddSampleLibrary("a\x00"),
		"retry id 0":           lib.RetryDocument(0, ""),
		"retry NUL password":   lib.RetryDocument(1, "a\x00"),
		"delete id -1":         lib.DeleteDocument(-1),
		"delete huge id":       lib.DeleteDocument(maxID + 1),
	}
	_, checks["pages id 0"] = lib.Pages(0)
	_, checks["cover id 0"] = lib.Cover(0)
	_, checks["documents id 0"] = lib.Documents(0)
	_, checks["page image id 0"] = lib.PageImage(0, 100)
	_, checks["blob path"] = lib.Blob("../../etc/passwd")
	_, checks["1 MB search"] = lib.Search(strings.Repeat("x", 1<<20), "", 5)
	_, checks["invalid UTF-8 search"] = lib.Search("\xff\xfe", "", 5)
	_, checks["search collection"] = lib.Search("q", "a\nb", 5)
	_, checks["where not a filter"] = lib.SearchWhere("q", "", "colour=red", 5)
	_, checks["where 1 MB"] = lib.SearchWhere("q", "", "org="+strings.Repeat("x", 1<<20), 5)
	_, checks["where control"] = lib.SearchWhere("q", "", "org=a\x00b", 5)
	_, checks["collection facets id 0"] = lib.CollectionFacets(0)
	_, checks["collection facets missing"] = lib.CollectionFacets(maxID)
	_, checks["facets id 0"] = lib.Facets(0)
	_, checks["facets missing document"] = lib.Facets(maxID)
	_, checks["set facet unknown"] = lib.SetFacet(1, "colour", "red")
	_, checks["set facet id 0"] = lib.SetFacet(0, "org", "x")
	_, checks["set facet huge value"] = lib.SetFacet(1, "org", strings.Repeat("x", 1<<20))
	_, checks["set facet bad year"] = lib.SetFacet(1, "year", "twenty")
	_, checks["reset facet unknown"] = lib.ResetFacet(1, "colour")
	for name, err := range checks {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if evs := ui.named(eventIngest); len(evs) != 0 {
		t.Errorf("rejected calls started ingests: %v", evs)
	}
	// A huge k is bounded, not an error.
	if _, err := lib.Search("anything", "", 1<<30); err != nil {
		t.Errorf("Search with a huge k: %v", err)
	}
}

// The first start over a Loupe library tells the window once.
func TestLibraryNoticesOnce(t *testing.T) {
	config.TakeNotices() // none left from another test
	dir := t.TempDir()
	// A Loupe release's database in a data directory named explicitly: the start renames it and says so.
	k, err := kb.Open(context.Background(), filepath.Join(dir, "loupe.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
	d, _ := startIn(t, dir)
	n := d.Library.Notices()
	if len(n) != 1 || !strings.Contains(n[0].Message, "Proofglass") || n[0].Code != config.NoticeLibraryRenamed || n[0].Params["dir"] != dir {
		t.Fatalf("Notices = %q, want one message about the adopted library", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "proofglass.db")); err != nil {
		t.Errorf("the Loupe database was not adopted: %v", err)
	}
	again, _ := json.Marshal(d.Library.Notices())
	if string(again) != "[]" { // once, and an empty list (not null) for the window
		t.Errorf("second Notices = %s, want []", again)
	}
}
