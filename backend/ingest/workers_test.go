package ingest

import "testing"

func TestSplitHelps(t *testing.T) {
	for cpus, want := range map[int]bool{1: false, 2: false, 3: true, 16: true} {
		if got := splitHelps(cpus); got != want {
			t.Errorf("splitHelps(%d) = %v, want %v", cpus, got, want)
		}
	}
}
