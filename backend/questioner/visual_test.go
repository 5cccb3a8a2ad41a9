package questioner

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/ollama"
)

// longestWords are a page's n longest lower-case words of letters only, each once: words any question about the
// page may name.
func longestWords(text string, n int) []string {
	seen := map[string]bool{}
	var ws []string
	for _, w := range strings.Fields(strings.ToLower(text)) {
		letters := w != ""
		for _, r := range w {
			letters = letters && unicode.IsLetter(r) && r < 128
		}
		if letters && !seen[w] && !isStop(w) {
			seen[w] = true
			ws = append(ws, w)
		}
	}
	slices.SortStableFunc(ws, func(a, b string) int { return len(b) - len(a) })
	return ws[:min(n, len(ws))]
}

// firstWords are the first n words of the page's text, as they stand.
func firstWords(text string, n int) string {
	f := strings.Fields(text)
	return strings.Join(f[:min(n, len(f))], " ")
}

func pngImage(context.Context, int64) (*model.Image, error) {
	return &model.Image{Data: []byte("\x89PNG\r\n\x1a\n"), MIME: "image/png"}, nil
}

func TestVisualKeepsQuestionsAboutThePageAndSaysWhyNotTheRest(t *testing.T) {
	pages := reportPages(t)
	p := pages[0]
	for _, c := range pages {
		if len(strings.Fields(c.Unit.Text)) > 150 {
			p = c
			break
		}
	}
	w := longestWords(p.Unit.Text, 4)
	if len(w) < 4 {
		t.Fatalf("page %d has too few words: %q", p.Unit.Ordinal, p.Unit.Text)
	}
	good := "1. Which findings does the study give for " + w[0] + " and " + w[1] + "?"
	other := "- How is " + w[2] + " related to " + w[3] + " in the blood loss report?"
	reply := strings.Join([]string{
		good,
		"**" + strings.TrimPrefix(other, "- ") + "**",                   // emphasis and a list marker go
		"Q3: " + strings.TrimPrefix(good, "1. "),                        // the same question again
		firstWords(p.Unit.Text, 14) + "?",                               // a run of the page's own words
		"What is shown in this image of " + w[0] + " and " + w[1] + "?", // the picture, not the document
		"What is the capital of France and its largest river?",          // nothing the page says
		"Why " + w[0] + "?",                                             // too short for a search
		" w25927 w25927 w25927",                                         // what a model with random weights writes
		"Here are the questions:",
	}, "\n")
	chat := modeltest.Always(reply)
	v := &Visual{Chat: chat, Model: "vlm", Image: pngImage, PerPage: 3}
	res, err := v.Write(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, q := range res.Questions {
		texts = append(texts, q.Text)
		if q.UnitID != p.Unit.ID || q.DocumentID != p.Unit.DocumentID || q.Page != p.Unit.Ordinal || q.Kind != kindVision {
			t.Errorf("question %q placed at unit %d doc %d page %d kind %s, want the page's", q.Text, q.UnitID, q.DocumentID, q.Page, q.Kind)
		}
	}
	want := []string{strings.TrimPrefix(good, "1. "), strings.TrimPrefix(other, "- ")}
	if !slices.Equal(texts, want) {
		t.Errorf("kept %q, want %q", texts, want)
	}
	wantRejected := map[string]int{RejectDuplicate: 1, RejectCopied: 1, RejectDeictic: 1, RejectOffPage: 1, RejectLength: 1, RejectNotQuestion: 2}
	for why, n := range wantRejected {
		if res.Rejected[why] != n {
			t.Errorf("rejected %q: %d, want %d (all: %v)", why, res.Rejected[why], n, res.Rejected)
		}
	}
	reqs := chat.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	parts := reqs[0].Messages[0].Parts
	if len(parts) != 2 || parts[0].Image == nil || !strings.Contains(parts[1].Text, "page "+strconv.Itoa(p.Unit.Ordinal)+" of the document \"blood_loss_report.pdf\"") ||
		!strings.Contains(parts[1].Text, "Write 3 different questions") {
		t.Errorf("the model was sent %+v, want the page image and the prompt naming page and document", parts)
	}
}

func TestVisualChineseQuestionsAreCheckedByCharacterPairs(t *testing.T) {
	on := pageWords("本公司2023年度营业收入为12,000万元，净利润同比增长百分之十五。")
	for _, c := range []struct{ q, want string }{
		{"该公司2023年的营业收入是多少？", ""},
		{"法国的首都在哪里，人口有多少？", RejectOffPage},
		{"本页显示的营业收入是多少？", RejectDeictic},
		{"营业收入", RejectNotQuestion},
	} {
		if got := reason(c.q, on); got != c.want {
			t.Errorf("reason(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestVisualE2ETinyVision sends a real page image through the Ollama adapter to the harness's vision model: its
// random weights write no question, and each line it writes is counted as rejected, not kept.
func TestVisualE2ETinyVision(t *testing.T) {
	host := modeltest.OllamaURL(t)
	ctx := modeltest.E2EContext(t)
	chat, err := ollama.New(host, ollama.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pages := reportPages(t)
	png := modeltest.ChartPNG(t)
	v := &Visual{Chat: chat, Model: "tiny-vision", PerPage: 3, Options: model.Options{Temperature: model.Float(0), MaxTokens: 16},
		Image: func(context.Context, int64) (*model.Image, error) { return png, nil }}
	res, err := v.Write(ctx, pages[0])
	if err != nil {
		t.Fatal(err)
	}
	rejected := 0
	for _, n := range res.Rejected {
		rejected += n
	}
	t.Logf("tiny-vision: %d kept, rejected %v", len(res.Questions), res.Rejected)
	if len(res.Questions) != 0 || rejected == 0 {
		t.Errorf("tiny-vision's text gave %d questions and %d rejected lines, want none kept and its lines rejected", len(res.Questions), rejected)
	}
}

func TestKeyPhrasesAreWholeTerms(t *testing.T) {
	for _, c := range []struct {
		sentence string
		want     []string
	}{
		{"The court denied the petition for a writ of mandamus filed by the Libertarian Party last year.",
			[]string{"writ of mandamus", "Libertarian Party"}},
		{"Nobody attempted anything like that today.", nil}, // no term ends in a noun
		{"We apply data preparation operators before training the detector.", []string{"data preparation operators"}},
		{"It was a very long time ago.", nil}, // common words name nothing
	} {
		var got []string
		for _, p := range keyPhrases(strings.Fields(c.sentence), 2) {
			got = append(got, strings.Join(p, " "))
		}
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("keyPhrases(%q) = %q, want %q", c.sentence, got, want)
		}
	}
}
