package library

import (
	"context"
	"testing"

	"proofglass/backend/kb"
)

// A run its process left behind (serve stopped, the window killed: no process holds its lock) is marked failed
// when Proofglass next opens the library; a run another live process holds keeps running (issue 41, row 9).
func TestRunsLeftRunningAreMarkedAtStart(t *testing.T) {
	ctx := context.Background()
	old := interruptedGrace
	interruptedGrace = 0
	t.Cleanup(func() { interruptedGrace = old })
	dir := t.TempDir()
	lib, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	left, err := lib.KB.History.CreateRun(ctx, kb.Run{Question: "cut off", Mode: "vrag"})
	if err != nil {
		t.Fatal(err)
	}
	going, err := lib.KB.History.CreateRun(ctx, kb.Run{Question: "still going", Mode: "vrag"})
	if err != nil {
		t.Fatal(err)
	}
	release := lib.holdRun(going.ID)

	status := func(l *Library, id int64) string {
		t.Helper()
		r, err := l.KB.History.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	again, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := status(again, left.ID); s != "failed" {
		t.Errorf("a run no process holds: %s after a start, want failed", s)
	}
	if s := status(again, going.ID); s != "running" {
		t.Errorf("a run a live process holds: %s after another start, want running", s)
	}
	again.Close()

	release()
	third, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if s := status(third, going.ID); s != "failed" {
		t.Errorf("a run whose process let go without finishing it: %s, want failed", s)
	}
}
