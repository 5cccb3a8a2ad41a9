package ingest

import (
	"image"
	"image/draw"
	_ "image/jpeg"
	"os"
	"strings"
	"testing"

	"proofglass/backend/kb"
)

// TestScanUnderAStampIsOCRd: a scanned page whose text layer holds only a court's filing stamp is OCR'd like a scan,
// and keeps both texts: the stamp from the layer and the page from OCR, each with boxes.
func TestScanUnderAStampIsOCRd(t *testing.T) {
	needTool(t, "tesseract")
	f, err := os.Open(testdata(t, "pdf", "scanned", "congress.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := image.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	scan := image.NewGray(src.Bounds())
	draw.Draw(scan, scan.Bounds(), src, src.Bounds().Min, draw.Src)
	stamp := "Case 1:15-cv-00123 Document 12 Filed 03/02/15 Page 1 of 16"
	path := bornDigitalPDF(t, []string{stamp}, scan, 0, 0, 612, 792)

	in, k := newIngester(t, Options{OCR: engOCR()})
	r := addOne(t, in, "filings", path)
	if r.Document.Status != kb.StatusReady {
		t.Fatalf("status %s: %s", r.Document.Status, r.Error)
	}
	u := units(t, k, r.Document.ID)[0]
	if u.TextSource != kb.TextMixed || !strings.Contains(u.Text, "Filed 03/02/15") || !strings.Contains(strings.ToUpper(u.Text), "SENATE") {
		t.Fatalf("page text (%s) = %.300q: want the stamp and the OCR of the scan", u.TextSource, u.Text)
	}
	var stampBox, scanBox bool
	for _, w := range u.Words {
		if w.X1 <= w.X0 {
			continue
		}
		stampBox = stampBox || w.Text == "Filed"
		scanBox = scanBox || strings.Contains(strings.ToUpper(w.Text), "SENATE")
	}
	if !stampBox || !scanBox {
		t.Errorf("boxes for the stamp %v, for the scan's words %v: want both", stampBox, scanBox)
	}
}
