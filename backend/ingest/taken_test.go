package ingest

import (
	"context"
	"testing"

	"proofglass/backend/facets"
	"proofglass/backend/kb"
)

// TestTakenDateFacets: a photo's EXIF date and a video's creation time become the document's date and year facets,
// so `--where year=2020` finds the photos of 2020; a picture that says no date gets none.
func TestTakenDateFacets(t *testing.T) {
	needTool(t, "ffmpeg", "ffprobe")
	ctx := context.Background()
	in, k := newIngester(t, Options{})
	for _, tc := range []struct {
		path       []string
		date, year string
	}{
		{[]string{"images", "photos", "IMG_1054.JPG"}, "2020-09-12", "2020"},
		{[]string{"images", "photos", "IMG-20191006-WA0002.jpg"}, "", ""},
		{[]string{"video", "gnome-display-dual-monitors.webm"}, "2011-10-12", "2011"},
	} {
		r := addOne(t, in, "media", testdata(t, tc.path...))
		if r.Document.Status != kb.StatusReady {
			t.Fatalf("%s: %s", r.Path, r.Error)
		}
		if m := ParseMeta(r.Document.Meta); m.Taken != tc.date {
			t.Errorf("%s: meta taken %q, want %q", r.Path, m.Taken, tc.date)
		}
		f, _, err := facets.Of(ctx, k, r.Document.ID)
		if err != nil {
			t.Fatal(err)
		}
		if f.Date != tc.date || f.Year != tc.year {
			t.Errorf("%s: date %q year %q, want %q %q", r.Path, f.Date, f.Year, tc.date, tc.year)
		}
		if r.Document.Kind != "image" {
			continue
		}
		// A photo ingested before dates were kept (no "taken" in its meta): refreshing its facets reads its EXIF.
		d := r.Document
		d.Meta = "{}"
		if err := k.Docs.UpdateDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
		if f, err := facets.Refresh(ctx, k, d.ID); err != nil || f.Date != tc.date {
			t.Errorf("%s: refreshed without a kept date: %q, %v; want %q", r.Path, f.Date, err, tc.date)
		}
	}
}
