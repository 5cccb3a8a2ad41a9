package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/ingest/ingesttest"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
	"proofglass/backend/pdf"
)

func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

const rel = "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"

// store makes a knowledge base with one real PDF's pages (MuPDF's words, stored in kb's binary form), a vector per
// page, a user's facet and a run whose events name its pages.
func store(t *testing.T) (*kb.KB, []int64) {
	t.Helper()
	ctx := context.Background()
	k := kbtest.Open(t)
	col, err := k.Docs.CreateCollection(ctx, kb.Collection{Name: "papers"})
	if err != nil {
		t.Fatal(err)
	}
	blob, size, err := k.Blobs.PutFile(fixture.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	units := ingesttest.Units(t, rel)
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: col.ID, SHA256: blob, Name: "anova.pdf", Kind: "pdf",
		SizeBytes: size, Blob: blob, Status: kb.StatusReady, Pages: len(units)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	err = k.Content.Batch(ctx, func(b *kb.Batch) error {
		us := make([]kb.Unit, len(units))
		for i, u := range units {
			u.ID, u.DocumentID = 0, d.ID
			u.ThumbBlob, u.ImageBlob = "", "" // the scratch ingest's blobs are not in this store
			us[i] = u
		}
		if ids, err = b.PutUnits(ctx, us); err != nil {
			return err
		}
		for i, id := range ids {
			if err := b.PutVector(ctx, id, kb.DefaultTextEmbedder, "text", vec(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Facets.SetUserFacet(ctx, d.ID, kb.Facet{Name: "org", Value: "Acme", Norm: "acme"}); err != nil {
		t.Fatal(err)
	}
	r, err := k.History.CreateRun(ctx, kb.Run{Question: "where?", Mode: "vrag"})
	if err != nil {
		t.Fatal(err)
	}
	ev := fmt.Sprintf(`{"seq":1,"kind":"run_started","run":{"collection":"papers","mode":"vrag","question":"where?"},"run_id":"%d"}`, r.ID)
	hit := fmt.Sprintf(`{"seq":2,"kind":"results","results":{"hits":[{"unit_id":"%d","document_id":"%d","page":3}]}}`, ids[2], d.ID)
	for i, e := range []string{ev, hit} {
		if err := k.History.AppendEvent(ctx, r.ID, i+1, strings.SplitN(strings.SplitN(e, `"kind":"`, 2)[1], `"`, 2)[0], []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	return k, ids
}

func vec(i int) []float32 {
	v := make([]float32, kb.DefaultTextDim)
	v[i%len(v)] = 1
	return v
}

func export(t *testing.T, k *kb.KB) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := Export(context.Background(), k, ExportRequest{Collections: []string{"papers"}, AppVersion: "test"}, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRoundTripKeepsRowsAsStored: words come back byte for byte as stored, and the run's events name the pages'
// new ids.
func TestRoundTripKeepsRowsAsStored(t *testing.T) {
	ctx := context.Background()
	src, srcIDs := store(t)
	zip := export(t, src)
	dst := kbtest.Open(t)
	// A collection made first shifts the ids, so a copied id would point at the wrong row.
	other, _ := dst.Docs.CreateCollection(ctx, kb.Collection{Name: "other"})
	dst.Docs.AddDocument(ctx, kb.Document{CollectionID: other.ID, SHA256: strings.Repeat("ab", 32), Name: "x.pdf", Kind: "pdf"})
	rep, err := Import(ctx, dst, bytes.NewReader(zip), int64(len(zip)), ImportRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added["units"] != int64(len(srcIDs)) || rep.Added["vectors"] != int64(len(srcIDs)) || rep.Added["run_events"] != 2 {
		t.Fatalf("report %+v", rep)
	}
	col, err := dst.Docs.CollectionByName(ctx, "papers")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := dst.Docs.Documents(ctx, col.ID)
	if len(docs) != 1 {
		t.Fatalf("%d documents", len(docs))
	}
	units, err := dst.Content.Units(ctx, docs[0].ID)
	if err != nil || len(units) != len(srcIDs) {
		t.Fatalf("%d units, %v", len(units), err)
	}
	for i, u := range units {
		if a, b := kbtest.RawWords(t, src, srcIDs[i]), kbtest.RawWords(t, dst, u.ID); !bytes.Equal(a, b) {
			t.Fatalf("page %d: words differ after the round trip (%d bytes, %d bytes)", u.Ordinal, len(a), len(b))
		}
	}
	runs, _ := dst.History.Runs(ctx, 0)
	evs, err := dst.History.Events(ctx, runs[0].ID)
	if err != nil || len(evs) != 2 {
		t.Fatalf("events %v %v", evs, err)
	}
	want := fmt.Sprintf(`"unit_id":"%d"`, units[2].ID)
	if !strings.Contains(string(evs[1].Data), want) || !strings.Contains(string(evs[1].Data), fmt.Sprintf(`"document_id":"%d"`, docs[0].ID)) {
		t.Fatalf("the hit names %s, want %s and document %d", evs[1].Data, want, docs[0].ID)
	}
	if !strings.Contains(string(evs[0].Data), `"run_id":"`+strconv.FormatInt(runs[0].ID, 10)+`"`) {
		t.Fatalf("run_started names %s, want run %d", evs[0].Data, runs[0].ID)
	}
	fs, _ := dst.Facets.DocumentFacets(ctx, []int64{docs[0].ID})
	if len(fs[docs[0].ID]) != 1 || fs[docs[0].ID][0].Value != "Acme" || fs[docs[0].ID][0].Source != "user" {
		t.Fatalf("facets %+v", fs)
	}
}

// TestLimitsStopLargeArchives: an archive larger than the reader's limits is refused before a row is written.
func TestLimitsStopLargeArchives(t *testing.T) {
	src, _ := store(t)
	zip := export(t, src)
	for name, lim := range map[string]Limits{
		"total":   {MaxMembers: 100, MaxMember: 1 << 30, MaxTotal: 1 << 10, MaxLine: 1 << 20, MaxManifest: 1 << 20},
		"member":  {MaxMembers: 100, MaxMember: 1 << 10, MaxTotal: 1 << 30, MaxLine: 1 << 20, MaxManifest: 1 << 20},
		"members": {MaxMembers: 3, MaxMember: 1 << 30, MaxTotal: 1 << 30, MaxLine: 1 << 20, MaxManifest: 1 << 20},
		"line":    {MaxMembers: 100, MaxMember: 1 << 30, MaxTotal: 1 << 30, MaxLine: 64, MaxManifest: 1 << 20},
	} {
		t.Run(name, func(t *testing.T) {
			dst := kbtest.Open(t)
			_, err := Import(context.Background(), dst, bytes.NewReader(zip), int64(len(zip)), ImportRequest{Limits: lim})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "accepted") {
				t.Fatalf("import = %v, want refused by the limit", err)
			}
			if n := kbtest.CountRows(t, dst, "units"); n != 0 {
				t.Fatalf("%d units written", n)
			}
		})
	}
}

func TestSafeName(t *testing.T) {
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../../x", `a\b`, "a/./b", "a//b", "x\x00", "tables/\n"} {
		if safeName(bad) == nil {
			t.Errorf("safeName(%q) accepted", bad)
		}
	}
	for _, ok := range []string{"manifest.json", "tables/units.jsonl", "blobs/" + strings.Repeat("0", 64), "extras/a b.txt"} {
		if err := safeName(ok); err != nil {
			t.Errorf("safeName(%q): %v", ok, err)
		}
	}
}

// TestImportIntoRenames: imported into another collection's name, the run's events name that collection, so a later
// export of it takes the run along.
func TestImportIntoRenames(t *testing.T) {
	ctx := context.Background()
	src, _ := store(t)
	zip := export(t, src)
	dst := kbtest.Open(t)
	if _, err := Import(ctx, dst, bytes.NewReader(zip), int64(len(zip)), ImportRequest{Into: "shared"}); err != nil {
		t.Fatal(err)
	}
	runs, _ := dst.History.Runs(ctx, 0)
	evs, _ := dst.History.Events(ctx, runs[0].ID)
	if !strings.Contains(string(evs[0].Data), `"collection":"shared"`) {
		t.Fatalf("run_started %s, want the collection it went into", evs[0].Data)
	}
	var b bytes.Buffer
	rep, err := Export(ctx, dst, ExportRequest{Collections: []string{"shared"}}, &b)
	if err != nil || rep.Counts["runs"] != 1 || rep.Counts["documents"] != 1 {
		t.Fatalf("export of the collection imported into: %+v, %v", rep, err)
	}
}
