// Package ocr recognises text with word boxes in images by running the tesseract command-line program.
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// DefaultLanguages are used when Options.Languages is empty (Debian packages tesseract-ocr-eng, -chi-sim).
var DefaultLanguages = []string{"eng", "chi_sim"}

// ErrNotInstalled means the tesseract binary was not found.
var ErrNotInstalled = errors.New("tesseract is not installed (" + installHint + ")")

// ErrLanguageMissing is wrapped by the error for a configured language without traineddata.
var ErrLanguageMissing = errors.New("tesseract language not installed")

// Options configures an Engine.
type Options struct {
	Binary    string   // default "tesseract"
	Languages []string // default DefaultLanguages
	// PageSegMode is tesseract's --psm; 0 leaves tesseract's default (3, automatic page segmentation).
	PageSegMode int
	// Timeout bounds one recognition; 0 means 2 minutes.
	Timeout time.Duration
	// Threads limits tesseract's OpenMP threads per process; 0 means 1, since pages are already OCRed in parallel.
	Threads int
}

// Box is a word's rectangle in pixels of the recognised image; X0,Y0 is the top-left corner.
type Box struct {
	X0 int `json:"x0"`
	Y0 int `json:"y0"`
	X1 int `json:"x1"`
	Y1 int `json:"y1"`
}

// Word is one recognised word.
type Word struct {
	Text string  `json:"text"`
	Box  Box     `json:"box"`
	Conf float64 `json:"conf"` // tesseract's confidence, 0..100
	Line int     `json:"line"` // 0-based line number in reading order
}

// Result is the text of one image.
type Result struct {
	Text  string `json:"text"`
	Words []Word `json:"words"`
	// MeanConf is the mean word confidence (0 when there are no words).
	MeanConf float64 `json:"mean_conf"`
	// Languages are the models that produced this result (the first pass's, or all of them).
	Languages []string `json:"languages,omitempty"`
}

// Engine runs tesseract. It is safe for concurrent use.
type Engine struct {
	o        Options
	checkMu  sync.Mutex
	checked  bool
	checkErr error
}

// New returns an Engine; nothing is run until Check or Recognize.
func New(o Options) *Engine {
	if o.Binary == "" {
		o.Binary = "tesseract"
	}
	if len(o.Languages) == 0 {
		o.Languages = DefaultLanguages
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	return &Engine{o: o}
}

// Languages returns the configured languages.
func (e *Engine) Languages() []string { return slices.Clone(e.o.Languages) }

// Check verifies once that tesseract runs and has every configured language.
func (e *Engine) Check(ctx context.Context) error {
	e.checkMu.Lock()
	defer e.checkMu.Unlock()
	if e.checked {
		return e.checkErr
	}
	e.checkErr = e.check(ctx)
	// A cancelled check says nothing about the installation; try again next time.
	e.checked = ctx.Err() == nil
	return e.checkErr
}

func (e *Engine) check(ctx context.Context) error {
	bin, err := exec.LookPath(e.o.Binary)
	if err != nil {
		return fmt.Errorf("ocr: %w: %v", ErrNotInstalled, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--list-langs").CombinedOutput()
	if err != nil {
		return fmt.Errorf("ocr: %s --list-langs: %w: %s", bin, err, bytes.TrimSpace(out))
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var missing []string
	for _, l := range e.o.Languages {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("ocr: %w: %s (Debian: apt-get install %s)", ErrLanguageMissing, strings.Join(missing, ", "),
			debPackages(missing))
	}
	return nil
}

func debPackages(langs []string) string {
	p := make([]string, len(langs))
	for i, l := range langs {
		p[i] = "tesseract-ocr-" + strings.ReplaceAll(l, "_", "-")
	}
	return strings.Join(p, " ")
}

// Recognize OCRs an encoded image (PNG, JPEG, TIFF, BMP…; whatever leptonica reads). name identifies the image in
// errors (a file name, "page 3 of x.pdf"). Cancelling ctx kills tesseract. When the languages mix alphabetic and
// CJK models, the image is read with the alphabetic ones first and again with all of them only if that read looks
// like an unread script (see cjkRetryConf).
func (e *Engine) Recognize(ctx context.Context, name string, image []byte) (*Result, error) {
	if err := e.Check(ctx); err != nil {
		return nil, err
	}
	if len(image) == 0 {
		return nil, fmt.Errorf("ocr %s: empty image", name)
	}
	first := firstPass(e.o.Languages)
	if first == nil {
		return e.run(ctx, name, image, e.o.Languages)
	}
	r, err := e.run(ctx, name, image, first)
	if err != nil || !needsCJK(r) {
		return r, err
	}
	r2, err := e.run(ctx, name, image, e.o.Languages)
	if err != nil {
		return nil, err
	}
	return better(r, r2), nil
}

// run is one tesseract process over image with langs, at background priority.
func (e *Engine) run(ctx context.Context, name string, image []byte, langs []string) (*Result, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, e.o.Timeout)
	defer cancel()
	args := []string{"stdin", "stdout", "-l", strings.Join(langs, "+")}
	if e.o.PageSegMode > 0 {
		args = append(args, "--psm", strconv.Itoa(e.o.PageSegMode))
	}
	args = append(args, "tsv")
	cmd := exec.CommandContext(ctx, e.o.Binary, args...)
	cmd.Env = append(cmd.Environ(), "OMP_THREAD_LIMIT="+strconv.Itoa(e.o.Threads))
	cmd.Stdin = bytes.NewReader(image)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Start()
	if err == nil {
		lowerPriority(cmd.Process.Pid)
		err = cmd.Wait()
	}
	if err != nil {
		if parent.Err() != nil {
			return nil, fmt.Errorf("ocr %s: %w", name, parent.Err())
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ocr %s: tesseract killed after the %s time limit", name, e.o.Timeout)
		}
		return nil, fmt.Errorf("ocr %s: tesseract failed: %w: %s", name, err, lastLines(stderr.String(), 3))
	}
	r, err := parseTSV(stdout.Bytes())
	if r != nil {
		r.Languages = langs
	}
	return r, err
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// parseTSV reads tesseract's TSV output: level page block par line word left top width height conf text. Level 5
// rows are words; block/par/line numbers group them into lines.
func parseTSV(b []byte) (*Result, error) {
	res := &Result{Words: []Word{}}
	type lineKey struct{ block, par, line int }
	var (
		cur     lineKey
		line    = -1
		prevBlk = -1
		sb      strings.Builder
		confSum float64
		prev    string
	)
	for i, row := range strings.Split(string(b), "\n") {
		if i == 0 || row == "" {
			continue // header
		}
		f := strings.Split(row, "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(f[11])
		if text == "" {
			continue
		}
		n := make([]int, 10)
		for k := 0; k < 10; k++ {
			n[k], _ = strconv.Atoi(f[k])
		}
		conf, _ := strconv.ParseFloat(f[10], 64)
		key := lineKey{n[2], n[3], n[4]}
		switch {
		case line < 0:
			line = 0
		case key != cur:
			line++
			if n[2] != prevBlk {
				sb.WriteString("\n\n")
			} else {
				sb.WriteString("\n")
			}
			prev = ""
		}
		if prev != "" && !(endsCJK(prev) && startsCJK(text)) {
			sb.WriteByte(' ')
		}
		sb.WriteString(text)
		prev = text
		cur, prevBlk = key, n[2]
		res.Words = append(res.Words, Word{Text: text, Conf: conf, Line: line,
			Box: Box{n[6], n[7], n[6] + n[8], n[7] + n[9]}})
		confSum += conf
	}
	res.Text = sb.String()
	if len(res.Words) > 0 {
		res.MeanConf = confSum / float64(len(res.Words))
	}
	return res, nil
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		unicode.In(r, unicode.Punct) && r > 0x2FFF
}

func endsCJK(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return isCJK(r)
}

func startsCJK(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isCJK(r)
}
