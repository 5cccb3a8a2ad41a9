package sample

import (
	"os"
	"testing"

	"proofglass/backend/imagefile"
)

func TestExtractWritesEveryKind(t *testing.T) {
	paths, err := Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 4 {
		t.Fatalf("%d sample files", len(paths))
	}
	classes := map[string]int{}
	for _, p := range paths {
		k, err := imagefile.SniffFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		classes[string(k.Class())]++
		if info, _ := os.Stat(p); info.Size() == 0 {
			t.Errorf("%s is empty", p)
		}
	}
	// Two PDFs (one with a text layer, one scanned), an image and a video: every path through ingestion.
	if classes["document"] != 2 || classes["image"] != 1 || classes["video"] != 1 {
		t.Errorf("kinds %v", classes)
	}
}
