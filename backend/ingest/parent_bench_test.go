package ingest

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

// BenchmarkParentRefman is the storing process's share of ingesting R's reference manual, pages 1–200 (a copy
// made with `mutool clean`): each round adds it to a fresh knowledge base and reports this process's CPU per page
// (user+system from rusage) beside the workers'. Profile the parent with -cpuprofile.
//
//	go test ./backend/ingest -run '^$' -bench ParentRefman -benchtime 5x
func BenchmarkParentRefman(b *testing.B) {
	fixture.Command(b, "mutool")
	src := filepath.Join(b.TempDir(), "R-refman-200.pdf")
	if out, err := exec.Command("mutool", "clean", testdata(b, "pdf", "real", "R-refman.pdf"), src, "1-200").CombinedOutput(); err != nil {
		b.Fatalf("mutool clean: %v %s", err, out)
	}
	ctx := context.Background()
	var self, kids float64
	pages := 0
	for b.Loop() {
		b.StopTimer()
		k := openKB(b, b.TempDir())
		in := New(k, nil, Options{Workers: 2, NoOCR: true, PDF: workerOptions()})
		b.StartTimer()
		s0, c0 := cpuTimes()
		res, err := in.Add(ctx, "bench", []string{src}, nil)
		in.Close()
		s1, c1 := cpuTimes()
		if err != nil {
			b.Fatal(err)
		}
		self += ms(s1 - s0)
		kids += ms(c1 - c0)
		pages += res[0].Document.Pages
	}
	b.ReportMetric(self/float64(pages), "parent-cpu-ms/page")
	b.ReportMetric(kids/float64(pages), "worker-cpu-ms/page")
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

// cpuTimes is the user+system CPU time of this process and of its waited-for children.
func cpuTimes() (self, children time.Duration) {
	var s, c syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(s.Utime) + tv(s.Stime), tv(c.Utime) + tv(c.Stime)
}
