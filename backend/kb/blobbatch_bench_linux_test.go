package kb

import (
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkBlobBatchThumbs stores 200 distinct 8 KB blobs (a document's thumbnails) into a fresh store in batches of
// 32, each synced, and reports the CPU per Put (this thread's, user+system; the syncs apart: their cost depends
// on everything else the machine is writing).
//
//	go test ./backend/kb -run '^$' -bench BlobBatchThumbs -benchtime 20x
func BenchmarkBlobBatchThumbs(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := rand.New(rand.NewPCG(1, 2))
	var cpu time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		dir, err := os.MkdirTemp("", "blobbench-")
		if err != nil {
			b.Fatal(err)
		}
		s, err := NewBlobStore(dir)
		if err != nil {
			b.Fatal(err)
		}
		data := make([][]byte, 200)
		for i := range data {
			data[i] = make([]byte, 8<<10)
			for k := range data[i] {
				data[i][k] = byte(r.Uint32())
			}
		}
		b.StartTimer()
		w := s.Batch()
		for i, d := range data {
			c0 := selfCPU()
			if _, err := w.Put(d); err != nil {
				b.Fatal(err)
			}
			cpu += selfCPU() - c0
			if i%32 == 31 {
				if err := w.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := w.Sync(); err != nil {
			b.Fatal(err)
		}
		n += len(data)
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/blob")
}

// selfCPU is this thread's CPU time (the benchmark locks its thread): exact, where rusage moves in scheduler ticks.
func selfCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
