package kbagent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/fixture"
	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker, the way the proofglass binary does: the pdf client
// re-executes os.Executable() with the worker command.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

func testdata(t testing.TB, rel string) string { return fixture.Path(t, rel) }

func openKB(t testing.TB) *kb.KB { return kbtest.Open(t) }

func pdfClient(t testing.TB) *pdf.Client {
	t.Helper()
	c := pdf.NewClient(pdf.Options{})
	t.Cleanup(func() { c.Close() })
	return c
}

// addPDF stores a real PDF as a document whose original is in the blob store, with one unit per page carrying
// MuPDF's text layer and word boxes (what ingest stores), and returns the page units' ids.
func addPDF(t testing.TB, k *kb.KB, c *pdf.Client, coll string, path string) (kb.Document, []int64) {
	t.Helper()
	ctx := context.Background()
	col, err := k.Docs.EnsureCollection(ctx, coll)
	if err != nil {
		t.Fatal(err)
	}
	blob, size, err := k.Blobs.PutFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := c.Open(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	data, _ := os.ReadFile(path)
	sum := sha256.Sum256(data)
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: col.ID, SHA256: hex.EncodeToString(sum[:]), Name: filepath.Base(path),
		Kind: "pdf", MIME: "application/pdf", SizeBytes: size, Blob: blob, Status: kb.StatusReady, Pages: doc.Pages()})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range doc.Pages() {
		p, err := doc.Page(ctx, i, pdf.PageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		words := make([]kb.Word, len(p.Words))
		for j, w := range p.Words {
			words[j] = kb.Word{Text: w.Text, X0: w.Box.X0, Y0: w.Box.Y0, X1: w.Box.X1, Y1: w.Box.Y1}
		}
		id, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: i + 1, Kind: kb.UnitPage, Width: p.Width, Height: p.Height,
			Text: p.Text, TextSource: kb.TextLayer, Words: words})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return d, ids
}

// withTestPDF opens a knowledge base holding the test PDF (collection "papers"): it, the PDF client and the page
// units' ids.
func withTestPDF(t *testing.T) (*kb.KB, *pdf.Client, []int64) {
	t.Helper()
	k := openKB(t)
	c := pdfClient(t)
	_, ids := addPDF(t, k, c, "papers", testdata(t, testPDF))
	return k, c, ids
}

// firstPDFPage renders the test PDF's first page: its renderer, unit and page info.
func firstPDFPage(t *testing.T) (*Renderer, string, agent.PageInfo) {
	t.Helper()
	k, c, ids := withTestPDF(t)
	r := &Renderer{KB: k, PDF: pdf.NewRenderer(c, nil, 2)}
	u := ID(ids[0])
	info, err := r.PageInfo(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return r, u, info
}

// addImageUnit stores an image document (its original blob and meta as given) with one unit of its normalised
// pixels, as ingest does, and returns the unit's id and the blob of those pixels.
func addImageUnit(t *testing.T, k *kb.KB, name, orig, meta string, res *imagefile.Result) (int64, string) {
	t.Helper()
	ctx := context.Background()
	normal, err := k.Blobs.Put(res.Normal)
	if err != nil {
		t.Fatal(err)
	}
	sha := orig
	if sha == "" {
		sha = normal
	}
	col, _ := k.Docs.EnsureCollection(ctx, "pics")
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: col.ID, SHA256: sha, Name: name, Kind: "image", Blob: orig,
		Status: kb.StatusReady, Pages: 1, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	id, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: 1, Kind: kb.UnitImage, Width: float64(res.NormalW),
		Height: float64(res.NormalH), ImageBlob: normal})
	if err != nil {
		t.Fatal(err)
	}
	return id, normal
}
