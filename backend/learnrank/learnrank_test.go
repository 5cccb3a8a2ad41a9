package learnrank

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
	"proofglass/backend/questioner"
	"proofglass/backend/rank"
	"proofglass/backend/search"
)

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// library ingests real PDFs of the shared test data into a fresh knowledge base (text layer only).
func library(t *testing.T) (*kb.KB, *search.Searcher) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	k, err := kb.Open(ctx, filepath.Join(dir, "proofglass.db"), filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	var paths []string
	for _, rel := range []string{"pdf/real/blood_loss_report.pdf", "pdf/real/hsaur3-Ch_analysis_of_variance.pdf",
		"pdf/real/hsaur3-Ch_graphical_display.pdf", "pdf/real/hsaur3-Ch_logistic_regression_glm.pdf",
		"pdf/real/hsaur3-Ch_multiple_linear_regression.pdf", "pdf/cjk/zhnumber.pdf"} {
		paths = append(paths, fixture.Path(t, rel))
	}
	in := ingest.New(k, nil, ingest.Options{NoOCR: true, Workers: 1})
	t.Cleanup(func() { in.Close() })
	res, err := in.Add(ctx, "docs", paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Error != "" {
			t.Fatal(r.Error)
		}
	}
	s := search.New(k, search.Options{})
	t.Cleanup(s.Close)
	return k, s
}

func TestTeachAndUseALearnedRanker(t *testing.T) {
	k, s := library(t)
	ctx := context.Background()
	rep, err := Run(ctx, k, s, Options{Questions: 200, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteTable(&b)
	t.Logf("\n%s", b.String())
	if rep.Documents != 6 || rep.HeldDocuments == 0 || rep.TrainDocuments == 0 || rep.HeldQuestions == 0 || rep.TrainQuestions == 0 {
		t.Fatalf("documents %d (held %d, train %d), questions held %d, train %d", rep.Documents, rep.HeldDocuments,
			rep.TrainDocuments, rep.HeldQuestions, rep.TrainQuestions)
	}
	if rep.Library.Learned != nil || rep.Trained {
		t.Errorf("without a stored ranker or --train, only the hand-set ranker is measured: %+v", rep.Library)
	}
	// The held-out documents are measured, never trained on: each of them has figures, and no training one does.
	if len(rep.ByDocument) != rep.HeldDocuments {
		t.Errorf("%d documents measured, %d held out", len(rep.ByDocument), rep.HeldDocuments)
	}
	if m := rep.Library.HandSet; m.Questions != rep.HeldQuestions || m.Hit10 < m.Hit5 || m.Hit5 < m.Hit1 || m.Hit10 == 0 {
		t.Errorf("whole-library figures %+v over %d held-out questions", m, rep.HeldQuestions)
	}

	rep, err = Run(ctx, k, s, Options{Questions: 200, Seed: 3, Train: true})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	rep.WriteTable(&b)
	t.Logf("\n%s", b.String())
	if !rep.Trained || rep.Library.Learned == nil {
		t.Fatalf("trained %v, learned figures %+v", rep.Trained, rep.Library.Learned)
	}
	stored, _, err := k.Search.Ranker(ctx, kb.RankLibrary)
	if rep.Kept == "" && (err != nil || len(stored) == 0 || rep.ModelBytes < len(stored) || rep.ModelBytes > 10<<20) {
		t.Fatalf("saved ranker: %d bytes (report %d), %v", len(stored), rep.ModelBytes, err)
	}
	if rep.Kept != "" {
		if len(stored) != 0 {
			t.Fatalf("a ranker that did worse (%s) was saved", rep.Kept)
		}
		t.Skipf("the learned ranker did worse on this draw and was not saved: %s", rep.Kept)
	}
	// Every whole-library search now uses it; a search of one document keeps the hand-set fusion; the hand-set
	// baseline can still be asked for.
	res, err := s.Search(ctx, search.Query{Text: "neonatal weight after vaginal delivery"})
	if err != nil || res.Ranker != "learned" {
		t.Errorf("whole library: ranker %q, %v", res.Ranker, err)
	}
	docRanker, _, err := k.Search.Ranker(ctx, kb.RankDocument)
	if err != nil || (len(docRanker) > 0) != (rep.KeptDocument == "") {
		t.Errorf("the within-document ranker: %d bytes stored, kept %q, %v", len(docRanker), rep.KeptDocument, err)
	}
	one, err := s.Search(ctx, search.Query{Text: "neonatal weight", DocumentIDs: []int64{res.Hits[0].DocumentID}})
	if want := map[bool]string{true: "", false: "learned"}[rep.KeptDocument != ""]; err != nil || one.Ranker != want {
		t.Errorf("one document: ranker %q (want %q), %v", one.Ranker, want, err)
	}
	if base, err := s.Search(ctx, search.Query{Text: "neonatal weight after vaginal delivery", NoLearned: true}); err != nil || base.Ranker != "" {
		t.Errorf("NoLearned: ranker %q, %v", base.Ranker, err)
	}
	// A second measurement without --train measures the stored ranker against the hand-set one.
	again, err := Run(ctx, k, s, Options{Questions: 200, Seed: 3})
	if err != nil || again.Library.Learned == nil || *again.Library.Learned != *rep.Library.Learned {
		t.Errorf("the stored ranker measured again: %+v, want %+v (%v)", again.Library.Learned, rep.Library.Learned, err)
	}
	if err := k.Search.DeleteRankers(ctx); err != nil {
		t.Fatal(err)
	}
	s.ForgetRanker()
	if res, err := s.Search(ctx, search.Query{Text: "neonatal weight after vaginal delivery"}); err != nil || res.Ranker != "" {
		t.Errorf("after forgetting: ranker %q, %v", res.Ranker, err)
	}
}

// A learned ranker that finds fewer pages than the hand-set one on the held-out questions is not saved.
func TestWorseRankerIsNotSaved(t *testing.T) {
	p := Pair{HandSet: Metrics{Questions: 100, Hit5: 0.8, MRR: 0.6}, Learned: &Metrics{Questions: 100, Hit5: 0.7, MRR: 0.6}}
	if why := worse(p, "here"); !strings.Contains(why, "fewer pages in the top 5 here") {
		t.Errorf("worse: %q", why)
	}
	p.Learned.Hit5 = 0.795 // within a question's worth
	if why := worse(p, "here"); why != "" {
		t.Errorf("within noise: %q", why)
	}
	p.Learned.MRR = 0.5
	if why := worse(p, "here"); !strings.Contains(why, "MRR") {
		t.Errorf("lower MRR: %q", why)
	}
}

// A ranker that gains over the whole library by losing one kind of question is not saved; a kind with too few
// questions to tell is not judged alone.
func TestRankerWorseOnOneKindIsNotSaved(t *testing.T) {
	byKind := map[string]Pair{
		"caption":    {HandSet: Metrics{Questions: 40, Hit5: 0.8}, Learned: &Metrics{Questions: 40, Hit5: 0.9}},
		"table-cell": {HandSet: Metrics{Questions: 40, Hit5: 0.75}, Learned: &Metrics{Questions: 40, Hit5: 0.65}},
		"heading":    {HandSet: Metrics{Questions: 5, Hit5: 1}, Learned: &Metrics{Questions: 5, Hit5: 0.4}},
	}
	if why := worseKind(byKind, "question"); !strings.Contains(why, `"table-cell"`) {
		t.Errorf("worseKind: %q, want the table-cell kind named", why)
	}
	byKind["table-cell"] = Pair{HandSet: Metrics{Questions: 40, Hit5: 0.75}, Learned: &Metrics{Questions: 40, Hit5: 0.725}}
	if why := worseKind(byKind, "question"); why != "" {
		t.Errorf("one question's worth lower, and a kind of 5 questions: %q, want none", why)
	}
}

// promptPage reads the page number and document name the vision prompt names.
var promptPage = regexp.MustCompile(`page (\d+) of the document "([^"]+)"`)

// TestVisionQuestionsTrainWhereTheRankingMisses replays a vision model that, for the page it is shown, writes one
// question naming the page's rarest words, one naming its commonest, and a line of noise: the noise is set aside,
// a training document's question is kept only where the hand-set ranking does not put its page first, and a held-out
// document's are measured as their own kind.
func TestVisionQuestionsTrainWhereTheRankingMisses(t *testing.T) {
	k, s := library(t)
	ctx := context.Background()
	texts := map[string]string{}
	docs, err := documents(ctx, k, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		us, err := k.Content.Units(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			texts[d.Name+"/"+strconv.Itoa(u.Ordinal)] = u.Text
		}
	}
	chat := modeltest.Func(func(req model.Request) (string, error) {
		m := promptPage.FindStringSubmatch(req.Messages[0].Text())
		if m == nil || req.Messages[0].Parts[0].Image == nil {
			return "", fmt.Errorf("no page image or page named in %q", req.Messages[0].Text())
		}
		ws := wordsByLength(texts[m[2]+"/"+m[1]])
		if len(ws) < 4 {
			return "noise", nil
		}
		return fmt.Sprintf("w25927 w25927\n1. What does the report say about %s and %s?\n2. Where is %s compared with %s?",
			ws[0], ws[1], ws[len(ws)-1], ws[len(ws)-2]), nil
	})
	v := &questioner.Visual{Chat: chat, Model: "vlm", PerPage: 2,
		Image: func(context.Context, int64) (*model.Image, error) {
			return &model.Image{Data: []byte{1}, MIME: "image/png"}, nil
		}}
	rep, err := Run(ctx, k, s, Options{Questions: 60, Seed: 3, Visual: v, VisualPages: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteTable(&b)
	t.Logf("\n%s", b.String())
	vr := rep.Visual
	if vr == nil || vr.Pages == 0 || vr.Pages > 2*rep.Documents || len(chat.Requests()) != vr.Pages {
		t.Fatalf("vision report %+v after %d model calls over %d documents", vr, len(chat.Requests()), rep.Documents)
	}
	if vr.Written == 0 || vr.Kept+vr.Easy+vr.Unfound+vr.Held != vr.Written || vr.Rejected["not a question"] < vr.Pages {
		t.Errorf("vision report %+v: every written question is kept, easy, unfound or held; each page's noise set aside", vr)
	}
	if vr.Easy == 0 {
		t.Errorf("no vision question was ranked first already: %+v", vr)
	}
	if got := rep.ByQuestionKind["vision"].HandSet.Questions; got != vr.Held {
		t.Errorf("%d vision questions measured, %d held out", got, vr.Held)
	}
}

// wordsByLength are a text's distinct words of letters, longest first.
func wordsByLength(text string) []string {
	seen := map[string]bool{}
	var ws []string
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.Trim(w, ".,;:()[]\"'")
		if len(w) < 4 || seen[w] || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
			continue
		}
		seen[w] = true
		ws = append(ws, w)
	}
	slices.SortStableFunc(ws, func(a, b string) int { return len(b) - len(a) })
	return ws
}

// The ranker starts from, and is held to, the hand-set weights the candidates came with: as a model they order
// every question's candidates exactly as the hand-set fusion did, over the whole library and within a document.
// (A library with the built-in embedder weighs its text signal less than the defaults say.)
func TestHandSetWeightsReproduceTheHandSetOrder(t *testing.T) {
	k, s := library(t)
	ctx := context.Background()
	docs, err := documents(ctx, k, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(search.FeatureNames)
	m := &rank.Model{Version: search.FeatureVersion, Features: search.FeatureNames, Mean: make([]float64, n), Std: make([]float64, n)}
	for i := range m.Std {
		m.Std[i] = 1
	}
	asked, differ := 0, 0
	for _, d := range docs {
		pages, kind, err := pagesOf(ctx, k, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range questioner.Generate(pages, questioner.Options{Seed: 5, Max: 10}) {
			a, err := ask(ctx, k, s, q, d, kind, withDefaults(Options{}))
			if err != nil {
				t.Fatal(err)
			}
			m.W = a.hand
			asked++
			for _, cs := range [][]search.Candidate{a.cands, a.scoped} {
				ordered := slices.Clone(cs)
				slices.SortStableFunc(ordered, func(x, y search.Candidate) int { return cmpScore(m, y, x) })
				for i := range cs {
					if cs[i].UnitID != ordered[i].UnitID && m.Score(cs[i].Features) != m.Score(ordered[i].Features) {
						differ++
						break
					}
				}
			}
		}
	}
	if asked < 20 || differ > 0 {
		t.Errorf("%d of %d questions' candidates ordered otherwise by the hand-set weights", differ, asked)
	}
}

func cmpScore(m *rank.Model, a, b search.Candidate) int {
	sa, sb := m.Score(a.Features), m.Score(b.Features)
	switch {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return 0
}
