// Package peakrss reads this process's peak resident set, which a benchmark running Proofglass as a child asks the child
// to report (the hidden --peak-rss-file flag).
package peakrss

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// MB is this process's peak resident set since it started its program, in MB: VmHWM of /proc/self/status
// (0 where there is none). Unlike the peak a parent reads from wait4, it does not count the moment between fork and
// exec, when the child still shares its parent's memory: a child of a benchmark process holding 400 MB was
// reported at 400 MB whatever it used.
func MB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return 0
			}
			return kb / 1024
		}
	}
	return 0
}
