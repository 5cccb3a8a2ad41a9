//go:build cgo

package pdf

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWorkerTimerSlack checks that a started worker runs with the workers' timer slack, and that the thread which
// started it gets its own slack back.
func TestWorkerTimerSlack(t *testing.T) {
	c := testClient(t, Options{})
	if _, err := c.Open(context.Background(), testdata(t, "pdf/real/blood_loss_report.pdf"), ""); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/proc/%d/timerslack_ns", c.w.cmd.Process.Pid)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("timer slack not readable: %v", err)
	}
	if got, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || got != workerTimerSlackNS {
		t.Errorf("%s = %q, want %d", path, b, workerTimerSlackNS)
	}

	runtime.LockOSThread() // startWorker runs on this thread too
	defer runtime.UnlockOSThread()
	before, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		t.Skipf("PR_GET_TIMERSLACK: %v", err)
	}
	if before == workerTimerSlackNS {
		t.Skip("this thread already has the workers' slack")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := startWorker(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if after, _ := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); after != before {
		t.Errorf("starting thread's slack = %d ns after the start, was %d", after, before)
	}
}
