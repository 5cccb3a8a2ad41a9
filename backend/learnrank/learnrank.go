// Package learnrank teaches a library its own ranking: it writes questions from the library's pages, holds out the
// questions of some documents, trains the learned ranker on the rest and measures both rankers on the held-out ones.
package learnrank

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/questioner"
	"proofglass/backend/rank"
	"proofglass/backend/search"
)

// Options say which documents teach the ranker, and how.
type Options struct {
	Collections []string // empty: every collection
	// Questions is about how many questions to write in all (default 600); at least two a document.
	Questions int
	// Held is the share of documents whose questions are held out to measure (default 0.3); never trained on.
	Held float64
	Seed uint64
	// Depth is how many candidates each question's search keeps (default 100).
	Depth int
	// Train trains a ranker on the other documents' questions and saves it with the library; without it the
	// report measures the hand-set ranker and the stored one, if any.
	Train bool
	// Visual, when set, also has a vision model write questions from page images (VisPlay's questioner): a
	// training document's question is kept only where today's ranking does not put its page first, and a held-out
	// document's are all measured, as the kind "vision".
	Visual *questioner.Visual
	// VisualPages is how many pages of each document the vision model is shown (default 2).
	VisualPages int
	Log         *slog.Logger
}

// Metrics are retrieval figures over a set of questions: the share whose page is first, in the top 5 and top 10, and
// the mean reciprocal rank of the page within the top 10.
type Metrics struct {
	Questions int     `json:"questions"`
	Hit1      float64 `json:"hit1"`
	Hit5      float64 `json:"hit5"`
	Hit10     float64 `json:"hit10"`
	MRR       float64 `json:"mrr"`
}

// Pair is a set's figures under the hand-set fusion and under the learned ranker (nil when there is none).
type Pair struct {
	HandSet Metrics  `json:"hand_set"`
	Learned *Metrics `json:"learned,omitempty"`
}

// Report is what teaching measured.
type Report struct {
	Library Pair `json:"library"`
	// WithinDocument scopes each held-out question's search to its own document.
	WithinDocument Pair            `json:"within_document"`
	ByDocument     map[string]Pair `json:"by_document"`
	ByQuestionKind map[string]Pair `json:"by_question_kind"`
	ByDocumentKind map[string]Pair `json:"by_document_kind"`

	Documents       int     `json:"documents"`
	Pages           int     `json:"pages"`
	TrainQuestions  int     `json:"train_questions"`
	HeldQuestions   int     `json:"held_questions"`
	TrainDocuments  int     `json:"train_documents"`
	HeldDocuments   int     `json:"held_documents"`
	TrainSeconds    float64 `json:"train_seconds"`
	QuestionSeconds float64 `json:"question_seconds"`
	ModelBytes      int     `json:"model_bytes"`
	Trained         bool    `json:"trained"`
	// Kept says why a trained ranker was not saved (searches keep the ranker they had); "" when it was.
	Kept string `json:"kept,omitempty"`
	// KeptDocument is the same for the ranker of searches within chosen documents.
	KeptDocument string `json:"kept_document,omitempty"`
	// L2 is how strongly the trained weights were held to the hand-set ones, chosen on the training documents alone.
	L2 float64 `json:"l2,omitempty"`
	// Choice and ChoiceDocument say how each ranker's form was chosen on the training documents: linear, or
	// boosted trees on top, and the cross-validated MRR of each.
	Choice         ModelChoice `json:"choice"`
	ChoiceDocument ModelChoice `json:"choice_document"`
	// Asked are the options the questions were written with: a refresh asks the same way.
	Asked Asked `json:"asked"`
	// CheckedPages is how many pages the library had when a refresh last trained a ranker it did not keep, so the
	// next refresh waits for the library to grow again.
	CheckedPages int `json:"checked_pages,omitempty"`
	// Visual is what the vision model's questions gave; nil when none was asked.
	Visual  *VisualReport      `json:"visual,omitempty"`
	Saved   time.Time          `json:"saved"`
	Weights map[string]float64 `json:"weights,omitempty"`
}

// asked is one question with its candidates' features and where its page ranks.
type asked struct {
	q       questioner.Question
	doc     string
	docKind string
	cands   []search.Candidate
	scoped  []search.Candidate // within its document
	// hand are the hand-set weights that ordered the candidates: the ranker starts from them and is held to them.
	hand []float64
	// same are the candidates whose text is the question's page's, word for word: a copy of the document, a page
	// repeated in a year's filing. They answer it as well as its page does.
	same map[int64]bool
}

// answers reports whether a candidate answers the question: its page, or a page with the same text.
func (a asked) answers(unit int64) bool { return unit == a.q.UnitID || a.same[unit] }

// Run writes questions from the library's pages, splits them by document, and measures (and, with o.Train,
// trains and saves) the learned ranker. s must search k.
func Run(ctx context.Context, k *kb.KB, s *search.Searcher, o Options) (*Report, error) {
	o = withDefaults(o)
	start := time.Now()
	docs, err := documents(ctx, k, o.Collections)
	if err != nil {
		return nil, err
	}
	if len(docs) < 2 {
		return nil, fmt.Errorf("teach ranker: %d documents with text; at least two are needed to hold some out", len(docs))
	}
	rep := &Report{Documents: len(docs), ByDocument: map[string]Pair{}, ByQuestionKind: map[string]Pair{}, ByDocumentKind: map[string]Pair{},
		Asked: Asked{Collections: o.Collections, Questions: o.Questions, Held: o.Held, Seed: o.Seed}}
	var train, held []asked
	perDoc := max(2, o.Questions/len(docs))
	// The ranking searches use now: a vision model's training questions are kept where it gets them wrong.
	current := stored(ctx, k, kb.RankLibrary)
	if o.Visual != nil {
		rep.Visual = &VisualReport{Rejected: map[string]int{}}
	}
	for _, d := range docs {
		isHeld := heldOut(d.ID, o.Seed, o.Held)
		pages, kind, err := pagesOf(ctx, k, d)
		if err != nil {
			return nil, err
		}
		qs := questioner.Generate(pages, questioner.Options{Seed: o.Seed ^ uint64(d.ID), PerPage: 2, Max: perDoc})
		rep.Pages += len(pages)
		if isHeld {
			rep.HeldDocuments++
		} else {
			rep.TrainDocuments++
		}
		for _, q := range qs {
			a, err := ask(ctx, k, s, q, d, kind, o)
			if err != nil {
				return nil, err
			}
			if isHeld {
				held = append(held, a)
			} else {
				train = append(train, a)
			}
		}
		if o.Visual != nil {
			vs, err := visualQuestions(ctx, k, s, pages, d, kind, isHeld, current, o, rep.Visual)
			if err != nil {
				return nil, err
			}
			if isHeld {
				held = append(held, vs...)
			} else {
				train = append(train, vs...)
			}
		}
	}
	rep.TrainQuestions, rep.HeldQuestions = len(train), len(held)
	rep.QuestionSeconds = time.Since(start).Seconds()
	if len(held) == 0 {
		return nil, fmt.Errorf("teach ranker: no question was written from the held-out documents")
	}
	// Two rankers: one for searches of the whole library, one for searches within chosen documents.
	lib, doc := scope{name: kb.RankLibrary, pick: libraryCands}, scope{name: kb.RankDocument, pick: documentCands}
	for _, sc := range []*scope{&lib, &doc} {
		if o.Train {
			t0 := time.Now()
			m, c, err := fit(train, o.Seed, sc.pick)
			if err != nil {
				return nil, fmt.Errorf("teach ranker: %w", err)
			}
			m.Questions, m.Pages = len(train), rep.Pages
			sc.model, sc.choice = m, c
			rep.TrainSeconds += time.Since(t0).Seconds()
			rep.Trained = true
		} else {
			sc.model = stored(ctx, k, sc.name)
		}
	}
	measure(rep, held, lib.model, doc.model)
	rep.L2, rep.Choice, rep.ChoiceDocument = lib.choice.L2, lib.choice, doc.choice
	if lib.model != nil {
		rep.Weights = lib.model.Weights()
	}
	if !o.Train {
		return rep, nil
	}
	var keep []*scope
	why := worse(rep.Library, "over the whole library")
	if why == "" {
		why = worseKind(rep.ByQuestionKind, "question")
	}
	if why == "" {
		why = worseKind(rep.ByDocumentKind, "document")
	}
	if why != "" {
		rep.Kept = "hand-set weights: the learned ranker " + why + " on the held-out questions"
	} else {
		keep = append(keep, &lib)
	}
	if why := worse(rep.WithinDocument, "within the questions' documents"); why != "" {
		rep.KeptDocument = "hand-set weights: the learned ranker " + why + " on the held-out questions"
	} else {
		keep = append(keep, &doc)
	}
	if err := save(ctx, k, s, keep, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// stored is the library's saved ranker of a scope, or nil when it has none that fits today's features.
func stored(ctx context.Context, k *kb.KB, name string) *rank.Model {
	b, _, err := k.Search.Ranker(ctx, name)
	if err != nil || len(b) == 0 {
		return nil
	}
	m, err := rank.Decode(b)
	if err != nil || !m.Fits(search.FeatureVersion, len(search.FeatureNames)) {
		return nil
	}
	return m
}

// scope is one of the two rankers a library learns: its name, the candidates it ranks, and the model.
type scope struct {
	name   string
	pick   func(asked) []search.Candidate
	model  *rank.Model
	choice ModelChoice
}

func libraryCands(a asked) []search.Candidate  { return a.cands }
func documentCands(a asked) []search.Candidate { return a.scoped }

// worse says how the learned ranker did worse than the hand-set one on the held-out questions (hit@5 or MRR lower
// by more than a question's worth); "" when it did not.
func worse(p Pair, where string) string {
	h, l := p.HandSet, p.Learned
	if l == nil || h.Questions == 0 {
		return ""
	}
	slack := 1 / float64(h.Questions)
	if l.Hit5 < h.Hit5-slack {
		return fmt.Sprintf("found fewer pages in the top 5 %s (%.3f against %.3f)", where, l.Hit5, h.Hit5)
	}
	if l.MRR < h.MRR-slack {
		return fmt.Sprintf("ranked pages lower %s (MRR %.3f against %.3f)", where, l.MRR, h.MRR)
	}
	return ""
}

// minKindQuestions is how many held-out questions a kind needs before the gate judges it alone: fewer are noise.
const minKindQuestions = 20

// worseKind says which kind of question (or document) the learned ranker did clearly worse on over the whole
// library: hit@5 lower by more than two of its questions' worth. A ranker that gains on the whole by losing one kind
// of source is not kept.
func worseKind(byKind map[string]Pair, what string) string {
	keys := make([]string, 0, len(byKind))
	for k := range byKind {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := byKind[k]
		h, l := p.HandSet, p.Learned
		if l == nil || h.Questions < minKindQuestions {
			continue
		}
		if l.Hit5 < h.Hit5-2/float64(h.Questions) {
			return fmt.Sprintf("found fewer pages in the top 5 for the %s kind %q (%.3f against %.3f)", what, k, l.Hit5, h.Hit5)
		}
	}
	return ""
}

func withDefaults(o Options) Options {
	if o.Questions <= 0 {
		o.Questions = 600
	}
	if o.Held <= 0 || o.Held >= 1 {
		o.Held = 0.3
	}
	if o.Depth <= 0 {
		o.Depth = 100
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return o
}

// documents are the ready documents of the collections (all when none is named), by id.
func documents(ctx context.Context, k *kb.KB, names []string) ([]kb.Document, error) {
	cs, err := k.Docs.Collections(ctx)
	if err != nil {
		return nil, fmt.Errorf("teach ranker: %w", err)
	}
	var out []kb.Document
	for _, c := range cs {
		if len(names) > 0 && !slices.Contains(names, c.Name) {
			continue
		}
		ds, err := k.Docs.Documents(ctx, c.ID)
		if err != nil {
			return nil, fmt.Errorf("teach ranker: documents of %s: %w", c.Name, err)
		}
		for _, d := range ds {
			if d.Status == "ready" && d.Kind == "pdf" {
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b kb.Document) int { return int(a.ID - b.ID) })
	return out, nil
}

// heldOut decides, from the document's id and the seed alone, whether its questions are held out.
func heldOut(doc int64, seed uint64, share float64) bool {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", seed, doc)
	return float64(h.Sum64()%10000)/10000 < share
}

// pagesOf are a document's pages as the questioners read them, and its kind (its kind facet, "annual report", else
// its file type).
func pagesOf(ctx context.Context, k *kb.KB, d kb.Document) ([]questioner.Page, string, error) {
	units, err := k.Content.Units(ctx, d.ID)
	if err != nil {
		return nil, "", fmt.Errorf("teach ranker: pages of %s: %w", d.Name, err)
	}
	fs, err := k.Facets.DocumentFacets(ctx, []int64{d.ID})
	if err != nil {
		return nil, "", fmt.Errorf("teach ranker: facets of %s: %w", d.Name, err)
	}
	facets := map[string]string{}
	for _, f := range fs[d.ID] {
		if f.Value != "" {
			facets[f.Name] = f.Value
		}
	}
	pages := make([]questioner.Page, 0, len(units))
	for _, u := range units {
		pages = append(pages, questioner.Page{Unit: u, DocumentName: d.Name, Facets: facets})
	}
	kind := facets["kind"]
	if kind == "" {
		kind = strings.TrimPrefix(strings.ToLower(filepath.Ext(d.Name)), ".")
	}
	return pages, kind, nil
}

// ask runs a question's first stage over the library and within its document.
func ask(ctx context.Context, k *kb.KB, s *search.Searcher, q questioner.Question, d kb.Document, kind string, o Options) (asked, error) {
	a := asked{q: q, doc: d.Name, docKind: kind}
	var err error
	a.cands, a.hand, err = s.Candidates(ctx, search.Query{Text: q.Text, Collections: o.Collections, Depth: o.Depth})
	if err != nil {
		return a, fmt.Errorf("teach ranker: search %q: %w", q.Text, err)
	}
	if a.same, err = sameText(ctx, k, q.UnitID, a.cands); err != nil {
		return a, err
	}
	a.scoped, _, err = s.Candidates(ctx, search.Query{Text: q.Text, Collections: o.Collections, DocumentIDs: []int64{d.ID}, Depth: o.Depth})
	if err != nil {
		return a, fmt.Errorf("teach ranker: search %q in %s: %w", q.Text, d.Name, err)
	}
	return a, nil
}

// l2s are the strengths the trained weights may be held to the hand-set ones with.
var l2s = []float64{0.01, 0.05, 0.2, 1, 5, 20}

// l2Tolerance is how much cross-validated MRR a stronger hold to the hand-set weights may cost and still be chosen.
const l2Tolerance = 0.005

// boostRounds is how many trees a boosted ranker adds to the linear one: fewer than rank's default, since on noisy,
// nearly linear signals more trees fit the noise.
const boostRounds = 25

// ModelChoice is how fit chose the ranker: the L2 strength, whether trees were added, and the MRR of each form of
// ranker on the other half of the training documents (the sum over the two halves, halved).
type ModelChoice struct {
	L2      float64 `json:"l2"`
	Boosted bool    `json:"boosted"`
	Linear  float64 `json:"cross_mrr_linear"`
	Trees   float64 `json:"cross_mrr_boosted"`
}

// fit trains the ranker on the training questions. It chooses how strongly to hold the weights to the hand-set ones,
// and whether boosted trees on top of them do better, by training on half the training documents and measuring MRR
// on the other half (and back): the held-out documents play no part in the choice.
func fit(train []asked, seed uint64, pick func(asked) []search.Candidate) (*rank.Model, ModelChoice, error) {
	init := prior(train)
	var folds [2][]asked
	for _, a := range train {
		f := 0
		if heldOut(a.q.DocumentID, seed+1, 0.5) {
			f = 1
		}
		folds[f] = append(folds[f], a)
	}
	linear := func(as []asked, l2 float64) (*rank.Model, error) {
		return rank.Train(groups(as, pick), search.FeatureNames, search.FeatureVersion, rank.Options{Init: init, L2: l2, Seed: seed})
	}
	boosted := func(as []asked, l2 float64) (*rank.Model, error) {
		m, err := linear(as, l2)
		if err != nil {
			return nil, err
		}
		return rank.Boost(groups(as, pick), m, rank.BoostOptions{Rounds: boostRounds})
	}
	// crossMRR is the mean over the two halves of the MRR on one half of a ranker trained on the other; -1 when a
	// half cannot train one.
	crossMRR := func(train func([]asked, float64) (*rank.Model, error), l2 float64) float64 {
		sum := 0.0
		for f := range 2 {
			m, err := train(folds[f], l2)
			if err != nil {
				return -1
			}
			var t tally
			for _, a := range folds[1-f] {
				t.add(rankOf(pick(a), a, m))
			}
			sum += t.metrics().MRR
		}
		return sum / 2
	}
	c := ModelChoice{L2: l2s[1], Linear: -1, Trees: -1}
	if len(folds[0]) > 0 && len(folds[1]) > 0 {
		mrrs := make([]float64, len(l2s))
		for i, l2 := range l2s {
			mrrs[i] = crossMRR(linear, l2)
			c.Linear = max(c.Linear, mrrs[i])
		}
		// The strongest hold within noise of the best: generated questions are not users' questions, so weights
		// that stray far from the hand-set ones for a gain this small would fit the generator, not the library.
		for i, l2 := range l2s {
			if mrrs[i] >= c.Linear-l2Tolerance {
				c.L2 = l2
			}
		}
		c.Linear = mrrs[slices.Index(l2s, c.L2)]
		c.Trees = crossMRR(boosted, c.L2)
		// Trees must earn their place: half a question's worth in a hundred of MRR, not a rounding's.
		c.Boosted = c.Linear >= 0 && c.Trees > c.Linear+0.005
	}
	train1 := linear
	if c.Boosted {
		train1 = boosted
	}
	m, err := train1(train, c.L2)
	return m, c, err
}

// prior are the hand-set weights the training questions' candidates were ordered by (the same for every question
// of one library), or the defaults when none says.
func prior(train []asked) []float64 {
	for _, a := range train {
		if len(a.hand) > 0 {
			return a.hand
		}
	}
	return search.HandWeights(search.DefaultWeights, search.DefaultStructure)
}

// sameText are the candidates other than the question's page whose text is the page's, word for word.
func sameText(ctx context.Context, k *kb.KB, page int64, cands []search.Candidate) (map[int64]bool, error) {
	ids := []int64{page}
	for _, c := range cands {
		if c.UnitID != page {
			ids = append(ids, c.UnitID)
		}
	}
	texts, err := k.Search.UnitTexts(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("teach ranker: %w", err)
	}
	want := strings.Join(strings.Fields(texts[page]), " ")
	out := map[int64]bool{}
	if want == "" {
		return out, nil
	}
	for _, id := range ids[1:] {
		if strings.Join(strings.Fields(texts[id]), " ") == want {
			out[id] = true
		}
	}
	return out, nil
}

// groups are the training questions as the ranker trains on them, over the candidates pick gives.
func groups(as []asked, pick func(asked) []search.Candidate) []rank.Group {
	var out []rank.Group
	for _, a := range as {
		g := rank.Group{}
		for _, c := range pick(a) {
			g.X = append(g.X, c.Features)
			g.Relevant = append(g.Relevant, a.answers(c.UnitID))
		}
		out = append(out, g)
	}
	return out
}

// save stores the kept models with the report, and makes the searcher use them.
func save(ctx context.Context, k *kb.KB, s *search.Searcher, keep []*scope, rep *Report) error {
	if len(keep) == 0 {
		return nil
	}
	encoded := make([][]byte, len(keep))
	for i, sc := range keep {
		b, err := sc.model.Encode()
		if err != nil {
			return fmt.Errorf("teach ranker: %w", err)
		}
		encoded[i] = b
		rep.ModelBytes += len(b)
		rep.Saved = sc.model.Trained
	}
	r, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("teach ranker: report: %w", err)
	}
	for i, sc := range keep {
		if err := k.Search.SaveRanker(ctx, sc.name, encoded[i], string(r), sc.model.Trained); err != nil {
			return fmt.Errorf("teach ranker: %w", err)
		}
	}
	s.ForgetRanker()
	return nil
}
