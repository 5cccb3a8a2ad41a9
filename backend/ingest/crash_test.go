package ingest

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
)

// crashChildEnv names the data directory of a child test process that ingests crashDoc and prints a line per
// finished unit, until its parent kills it.
const crashChildEnv = "PROOFGLASS_INGEST_CRASH_CHILD"

const crashDoc = "reportlab-userguide.pdf" // 134 pages with a text layer

func crashChild() int {
	dir := os.Getenv(crashChildEnv)
	ctx := context.Background()
	k, err := kb.Open(ctx, dir+"/proofglass.db", dir+"/blobs")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	in := New(k, nil, Options{NoOCR: true, Workers: 2, PDF: workerOptions()})
	defer in.Close()
	out := bufio.NewWriter(os.Stdout)
	extracted := 0
	_, err = in.Add(ctx, "crash", []string{os.Getenv("PROOFGLASS_INGEST_CRASH_FILE")}, func(p Progress) {
		switch p.Stage {
		case StageExtract:
			// The page's extract step is recorded before its event. Progress callbacks run one at a time, so the
			// sleep paces extraction: the parent's kill lands a few pages after the count it reacts to.
			extracted++
			fmt.Fprintf(out, "extracted %d\n", extracted)
			out.Flush()
			time.Sleep(10 * time.Millisecond)
		case StageEmbed:
			time.Sleep(5 * time.Millisecond) // embedding trails extraction, so resume also finds pages to embed
		}
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(out, "finished")
	out.Flush()
	return 0
}

// TestResumeAfterKill kills an ingesting process with SIGKILL at a random page, then adds the file again: the
// ingest resumes without redoing recorded pages, and the result equals an uninterrupted run.
func TestResumeAfterKill(t *testing.T) {
	path := testdata(t, "pdf", "real", crashDoc)
	dir := t.TempDir()
	killAt := 20 + rand.IntN(60)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, "PROOFGLASS_INGEST_CRASH_FILE="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	killed := false
	for sc.Scan() {
		n, _ := strconv.Atoi(strings.TrimPrefix(sc.Text(), "extracted "))
		if n >= killAt {
			syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
			killed = true
			break
		}
	}
	cmd.Wait()
	if !killed {
		t.Fatal("child finished before it could be killed")
	}
	ctx := context.Background()
	k := openKB(t, dir)
	docs, _ := k.Docs.Documents(ctx, 0)
	if len(docs) != 1 || docs[0].Status != kb.StatusIngesting {
		t.Fatalf("after kill: %+v, want one document still ingesting", docs)
	}
	steps, _ := k.Content.Steps(ctx, docs[0].ID)
	extracted := 0
	for _, s := range steps {
		if s.Stage == StageExtract {
			extracted++
		}
	}
	if extracted < killAt || extracted >= 134 {
		t.Fatalf("%d pages recorded as extracted at the kill (killed at %d extracted)", extracted, killAt)
	}

	in := New(k, nil, Options{NoOCR: true, Workers: 2, PDF: workerOptions()})
	defer in.Close()
	var c collect
	res, err := in.Add(ctx, "crash", []string{path}, c.fn)
	if err != nil || res[0].Document.Status != kb.StatusReady {
		t.Fatalf("resume: %+v %v", res, err)
	}
	if got := c.stages(docs[0].ID, StageExtract); got != 134-extracted {
		t.Errorf("resume extracted %d pages, want only the %d not recorded", got, 134-extracted)
	}

	// An uninterrupted run in another knowledge base gives the same units and vectors.
	ref, refKB := newIngester(t, Options{NoOCR: true})
	rr := addOne(t, ref, "crash", path)
	got, want := units(t, k, docs[0].ID), units(t, refKB, rr.Document.ID)
	if len(got) != 134 || len(want) != 134 {
		t.Fatalf("%d units after resume, %d uninterrupted, want 134", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Ordinal != w.Ordinal || g.Text != w.Text || len(g.Words) != len(w.Words) || g.ThumbBlob != w.ThumbBlob ||
			g.Width != w.Width {
			t.Fatalf("page %d differs after resume", w.Ordinal)
		}
	}
	count := func(k *kb.KB, doc int64) int { return kbtest.CountVectors(t, k, kbtest.Embeddings{Document: doc}) }
	if a, b := count(k, docs[0].ID), count(refKB, rr.Document.ID); a != b {
		t.Errorf("%d vectors after resume, %d uninterrupted", a, b)
	}
	if probs, err := k.Integrity(ctx); err != nil || len(probs) > 0 {
		t.Errorf("integrity after kill and resume: %v %v", probs, err)
	}
}
