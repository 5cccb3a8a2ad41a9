package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FormatsOptions says what `bench formats` ingests.
type FormatsOptions struct {
	// Files are the documents to ingest, one format each (e.g. backend/ingest/testdata/formats and a PDF).
	Files []string
	// Exe is the shipped proofglass binary that adds them.
	Exe string
	// Rounds is how often each file is added (each time into a new data directory); the row is the median round.
	Rounds int
}

// Formats adds each file alone, as a user at a terminal would (`proofglass add`, a new process and data directory
// each time), and emits one row per file: its pages, wall and CPU time (the MuPDF worker's included), pages per wall
// second and the process's peak RSS. Small files measure mostly the process's start, which the first row, the
// smallest file, shows on its own.
func Formats(ctx context.Context, o FormatsOptions, emit func(Row)) error {
	if o.Rounds < 1 {
		o.Rounds = 1
	}
	files := slices.Clone(o.Files)
	slices.SortFunc(files, func(a, b string) int { return int(fileSize(a) - fileSize(b)) })
	for _, f := range files {
		var rounds []child
		pages := 0
		for range o.Rounds {
			dir, err := os.MkdirTemp("", "proofglass-bench-formats-")
			if err != nil {
				return err
			}
			lo := LibraryOptions{Exe: o.Exe, Dir: dir}
			c, err := runChild(ctx, lo, "add", "--no-ocr", "--collection", "formats", f)
			if err == nil {
				var list child
				if list, err = runChild(ctx, lo, "documents", "list", "--json"); err == nil {
					pages, err = readyPages(list.stdout, f)
				}
			}
			os.RemoveAll(dir)
			if err != nil {
				return err
			}
			rounds = append(rounds, c)
		}
		slices.SortFunc(rounds, func(a, b child) int { return int((a.wall - b.wall) * 1e6) })
		c := rounds[len(rounds)/2]
		r := Row{What: "add " + filepath.Base(f), N: pages, WallS: c.wall, CPUS: c.cpu, RSSMB: c.rssMB,
			Note: fmt.Sprintf("%.0f KB", float64(fileSize(f))/1024)}
		if c.wall > 0 {
			r.PerS = float64(pages) / c.wall
		}
		if c.cpu > 0 {
			r.PerCPUS = float64(pages) / c.cpu
		}
		emit(r)
	}
	return nil
}

// readyPages is the pages of the documents `documents list --json` printed (one, or a message's with its
// attachments', a mailbox's messages'), every one of which must be ready.
func readyPages(out []byte, file string) (int, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	pages, docs := 0, 0
	for sc.Scan() {
		var d struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Error  string `json:"error"`
			Pages  int    `json:"pages"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			continue
		}
		if d.Status != "ready" {
			return 0, fmt.Errorf("bench: %s: %s: %s: %s", file, d.Name, d.Status, d.Error)
		}
		pages += d.Pages
		docs++
	}
	if docs == 0 {
		return 0, fmt.Errorf("bench: %s: no document listed after add: %s", file, strings.TrimSpace(string(out)))
	}
	return pages, nil
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
