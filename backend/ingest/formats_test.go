package ingest

import (
	"strings"
	"testing"
)

// Every extension of the table names one kind once, in lower case with its dot, and the name checks read the table:
// a read extension and an unread one are both known, with their format's kind.
func TestFormats(t *testing.T) {
	seen := map[string]string{}
	ids := map[string]bool{}
	for _, f := range Formats {
		if ids[f.ID] {
			t.Errorf("format ID %q twice", f.ID)
		}
		ids[f.ID] = true
		if f.ID == "" || f.Kind == "" || f.Name == "" || len(f.Extensions) == 0 {
			t.Errorf("format %+v: kind, name and extensions are required", f)
		}
		for _, e := range append(append([]string(nil), f.Extensions...), f.Unread...) {
			if !strings.HasPrefix(e, ".") || strings.ToLower(e) != e {
				t.Errorf("%s: extension %q is not lower case with a dot", f.Kind, e)
			}
			if k, dup := seen[e]; dup {
				t.Errorf("extension %q is in both %s and %s", e, k, f.Kind)
			}
			seen[e] = f.Kind
		}
	}
	for name, kind := range map[string]string{"a.PDF": "pdf", "scan.webp": "image", "phone.HEIC": "image", "clip.m4v": "video"} {
		if !knownExtension(name) || kindFromExtension(name) != kind {
			t.Errorf("%s: known %v, kind %q; want %q", name, knownExtension(name), kindFromExtension(name), kind)
		}
	}
	if knownExtension("notes.log") {
		t.Error("notes.log is known")
	}
}
