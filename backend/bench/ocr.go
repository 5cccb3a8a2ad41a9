package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"proofglass/backend/ocr"
	"proofglass/backend/pdf"
)

// OCROptions configures OCR.
type OCROptions struct {
	Sources   []string // PDFs (or folders) whose pages are rendered and recognised
	MaxPages  int      // pages at most (0: 16), three per file at most
	Languages []string // Proofglass's configured languages (default ocr.DefaultLanguages)
	PDF       pdf.Options
}

// OCR renders pages at 300 dpi (as ingest does for OCR) and recognises them three ways, in the same run: Proofglass's
// engine (alphabetic models first, CJK only where needed), plain `tesseract -l` with every configured language
// (what ingest did before), and `tesseract -l eng` (the floor). Rows give pages per CPU second of tesseract.
func OCR(ctx context.Context, o OCROptions, emit func(Row)) error {
	if o.MaxPages <= 0 {
		o.MaxPages = 16
	}
	if len(o.Languages) == 0 {
		o.Languages = ocr.DefaultLanguages
	}
	if _, err := exec.LookPath("tesseract"); err != nil {
		return fmt.Errorf("bench ocr: %w", ocr.ErrNotInstalled)
	}
	files, err := sourceFiles(o.Sources)
	if err != nil {
		return err
	}
	c := pdf.NewClient(o.PDF)
	defer c.Close()
	var pages [][]byte
	for _, f := range files {
		d, err := c.Open(ctx, f, "")
		if err != nil {
			continue
		}
		// A few pages per file, so the sample mixes files (and scripts).
		for i := 0; i < min(d.Pages(), 3) && len(pages) < o.MaxPages; i++ {
			r, err := d.Render(ctx, pdf.RenderRequest{Page: i, DPI: 300, MaxPixels: 16_000_000, Format: pdf.PNG})
			if err == nil {
				pages = append(pages, r.Data)
			}
		}
		d.Close()
		if len(pages) >= o.MaxPages {
			break
		}
	}
	if len(pages) == 0 {
		return fmt.Errorf("bench ocr: no page rendered from %s", strings.Join(o.Sources, ", "))
	}
	// A generous limit: on a loaded machine a niced tesseract can wait minutes for a core.
	eng := ocr.New(ocr.Options{Languages: o.Languages, Timeout: 15 * time.Minute})
	plain := func(langs string) func(img []byte) error {
		return func(img []byte) error {
			cmd := exec.CommandContext(ctx, "tesseract", "stdin", "stdout", "-l", langs, "tsv")
			cmd.Env = append(cmd.Environ(), "OMP_THREAD_LIMIT=1")
			cmd.Stdin = bytes.NewReader(img)
			return cmd.Run()
		}
	}
	second := 0
	runs := []struct {
		what string
		fn   func([]byte) error
	}{
		{"ocr: proofglass (" + strings.Join(o.Languages, "+") + ", CJK where needed)", func(img []byte) error {
			r, err := eng.Recognize(ctx, "bench page", img)
			if err == nil && len(r.Languages) == len(o.Languages) {
				second++
			}
			return err
		}},
		{"ocr: tesseract -l " + strings.Join(o.Languages, "+"), plain(strings.Join(o.Languages, "+"))},
		{"ocr: tesseract -l eng", plain("eng")},
	}
	var base float64
	for i, r := range runs {
		_, kids0 := cpuTimes()
		start := time.Now()
		for _, img := range pages {
			if err := r.fn(img); err != nil {
				return fmt.Errorf("bench %s: %w", r.what, err)
			}
		}
		wall := time.Since(start).Seconds()
		_, kids1 := cpuTimes()
		cpu := (kids1 - kids0).Seconds()
		row := Row{What: r.what, N: len(pages), WallS: wall, CPUS: cpu, PerS: float64(len(pages)) / wall, PerCPUS: float64(len(pages)) / cpu}
		switch i {
		case 0:
			base = row.PerCPUS
			row.Note = fmt.Sprintf("%d of %d pages needed the CJK model", second, len(pages))
		default:
			row.Note = fmt.Sprintf("proofglass is %.2f× this per CPU second", base/row.PerCPUS)
		}
		emit(row)
	}
	return nil
}
