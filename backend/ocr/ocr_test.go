package ocr

import (
	"context"
	"errors"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

func needTesseract(t *testing.T) {
	t.Helper()
	fixture.Command(t, "tesseract")
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRecognizeScans(t *testing.T) {
	needTesseract(t)
	cases := map[string]struct {
		file  string
		langs []string
		want  []string
	}{
		"typewriter recipe": {"pdf/scanned/typewriter.png", []string{"eng"}, []string{"Linzensoep", "Waterman", "water"}},
		"chart labels":      {"images/charts/fairs_data.png", nil, []string{"Marginal", "Effects"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := fixture.Path(t, tc.file)
			img := read(t, path)
			cfg, _, err := image.DecodeConfig(strings.NewReader(string(img)))
			if err != nil {
				t.Fatal(err)
			}
			res, err := New(Options{Languages: tc.langs}).Recognize(context.Background(), path, img)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("text lacks %q: %q", w, res.Text)
				}
			}
			if len(res.Words) < 5 || res.MeanConf < 50 {
				t.Errorf("%d words, mean confidence %.0f", len(res.Words), res.MeanConf)
			}
			for _, w := range res.Words {
				if w.Box.X0 < 0 || w.Box.Y0 < 0 || w.Box.X1 > cfg.Width || w.Box.Y1 > cfg.Height || w.Box.X1 <= w.Box.X0 {
					t.Fatalf("word %q box %+v outside the %dx%d image", w.Text, w.Box, cfg.Width, cfg.Height)
				}
			}
		})
	}
}

// TestRecognizeChinese OCRs a page of Chinese text rendered by poppler's pdftoppm.
func TestRecognizeChinese(t *testing.T) {
	needTesseract(t)
	fixture.Command(t, "pdftoppm")
	out := filepath.Join(t.TempDir(), "zh")
	pdf := fixture.Path(t, "pdf/cjk/zhlipsum.pdf")
	if b, err := exec.Command("pdftoppm", "-r", "150", "-f", "3", "-l", "3", "-x", "0", "-y", "0", "-W", "1240",
		"-H", "700", "-png", "-singlefile", pdf, out).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, b)
	}
	res, err := New(Options{}).Recognize(context.Background(), "zhlipsum page 3", read(t, out+".png"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "编程接口") {
		t.Errorf("text lacks 编程接口: %q", res.Text)
	}
	if !slices.Contains(res.Languages, "chi_sim") {
		t.Errorf("Chinese page read with %v, want the CJK model", res.Languages)
	}
}

// TestCJKModelOnlyWhereNeeded: with the default languages (eng+chi_sim) an English scan is read by eng alone, one
// tesseract run without the costly CJK model; a Chinese page is covered by TestRecognizeChinese.
func TestCJKModelOnlyWhereNeeded(t *testing.T) {
	needTesseract(t)
	path := fixture.Path(t, "pdf/scanned/typewriter.png")
	res, err := New(Options{}).Recognize(context.Background(), path, read(t, path))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Languages, []string{"eng"}) {
		t.Errorf("English scan read with %v (mean confidence %.0f), want eng alone", res.Languages, res.MeanConf)
	}
	if !strings.Contains(res.Text, "Waterman") {
		t.Errorf("text lacks Waterman: %q", res.Text)
	}
	if got := firstPass([]string{"eng", "chi_sim", "deu", "jpn_vert"}); !slices.Equal(got, []string{"eng", "deu"}) {
		t.Errorf("first pass %v", got)
	}
	if got := firstPass([]string{"chi_sim"}); got != nil {
		t.Errorf("first pass of CJK alone %v, want one pass with every language", got)
	}
}

func TestMissingTesseractOrLanguage(t *testing.T) {
	needTesseract(t)
	ctx := context.Background()
	_, err := New(Options{Binary: "/nonexistent/tesseract"}).Recognize(ctx, "x.png", []byte("x"))
	if !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing binary: %v", err)
	}
	err = New(Options{Languages: []string{"eng", "klingon_xx"}}).Check(ctx)
	if !errors.Is(err, ErrLanguageMissing) || !strings.Contains(err.Error(), "klingon_xx") ||
		strings.Contains(err.Error(), "eng,") {
		t.Errorf("missing language: %v", err)
	}
}

func TestCancelKillsTesseract(t *testing.T) {
	needTesseract(t)
	img := read(t, fixture.Path(t, "pdf/scanned/LinnSequencer.jpg"))
	e := New(Options{Languages: []string{"eng"}})
	if err := e.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	_, err := e.Recognize(ctx, "LinnSequencer.jpg", img)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// A short time limit ends tesseract the same way, with its own message.
	_, err = New(Options{Languages: []string{"eng"}, Timeout: 100 * time.Millisecond}).Recognize(context.Background(), "LinnSequencer.jpg", img)
	if err == nil || !strings.Contains(err.Error(), "time limit") || !strings.Contains(err.Error(), "LinnSequencer.jpg") {
		t.Fatalf("err = %v, want a time-limit error naming the image", err)
	}
}

func TestGarbageImageFails(t *testing.T) {
	needTesseract(t)
	_, err := New(Options{Languages: []string{"eng"}}).Recognize(context.Background(), "junk.bin", []byte("not an image at all"))
	if err == nil || !strings.Contains(err.Error(), "junk.bin") {
		t.Fatalf("err = %v, want an error naming junk.bin", err)
	}
}

func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t10\t20\t30\t10\t96.5\tHello\n" +
		"5\t1\t1\t1\t1\t2\t45\t20\t30\t10\t90\tworld\n" +
		"5\t1\t1\t1\t2\t1\t10\t40\t10\t10\t80\t中\n" +
		"5\t1\t1\t1\t2\t2\t20\t40\t10\t10\t70\t文\n" +
		"5\t1\t2\t1\t1\t1\t10\t80\t20\t10\t50\tend\n"
	res, err := parseTSV([]byte(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hello world\n中文\n\nend" {
		t.Errorf("text = %q", res.Text)
	}
	if len(res.Words) != 5 || res.Words[1].Box != (Box{45, 20, 75, 30}) || res.Words[2].Line != 1 || res.Words[4].Line != 2 {
		t.Errorf("words = %+v", res.Words)
	}
	if res.MeanConf != (96.5+90+80+70+50)/5 {
		t.Errorf("mean conf = %v", res.MeanConf)
	}
}
