package eval

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// PageRef names a page of a document: its file name and 1-based page number.
type PageRef struct {
	Doc  string `json:"doc"`
	Page int    `json:"page"`
}

// PageScores are one question's retrieval metrics.
//
//   - Recall@k: the share of the question's evidence pages among the first k retrieved pages.
//   - MRR@10: 1/rank of the first evidence page within the first 10 (0 if none).
//   - NDCG@5: binary-relevance DCG of the first 5 over the best DCG possible with that many evidence pages.
//   - Hit@k: 1 if any evidence page is among the first k, else 0 (the question counts once, however many pages).
type PageScores struct {
	Recall1  float64 `json:"recall@1"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	MRR10    float64 `json:"mrr@10"`
	NDCG5    float64 `json:"ndcg@5"`
	Hit1     float64 `json:"hit@1"`
	Hit5     float64 `json:"hit@5"`
	Hit10    float64 `json:"hit@10"`
}

// ScorePages scores a ranked list against the relevant pages. Repeated pages in ranked count once, at their first
// position; an empty relevant set scores zero everywhere (callers skip such questions).
func ScorePages(ranked, relevant []PageRef) PageScores {
	var s PageScores
	if len(relevant) == 0 {
		return s
	}
	rel := map[PageRef]bool{}
	for _, r := range relevant {
		rel[r] = true
	}
	seen := map[PageRef]bool{}
	var hits1, hits5, hits10 int
	var dcg float64
	pos := 0
	for _, p := range ranked {
		if seen[p] {
			continue
		}
		seen[p] = true
		pos++
		if pos > 10 {
			break
		}
		if !rel[p] {
			continue
		}
		if pos <= 1 {
			hits1++
		}
		if pos <= 5 {
			hits5++
			dcg += 1 / math.Log2(float64(pos)+1)
		}
		hits10++
		if s.MRR10 == 0 {
			s.MRR10 = 1 / float64(pos)
		}
	}
	n := float64(len(rel))
	s.Recall1, s.Recall5, s.Recall10 = float64(hits1)/n, float64(hits5)/n, float64(hits10)/n
	var idcg float64
	for i := 1; i <= min(5, len(rel)); i++ {
		idcg += 1 / math.Log2(float64(i)+1)
	}
	s.NDCG5 = dcg / idcg
	hit := func(n int) float64 {
		if n > 0 {
			return 1
		}
		return 0
	}
	s.Hit1, s.Hit5, s.Hit10 = hit(hits1), hit(hits5), hit(hits10)
	return s
}

// Summary is the mean of PageScores over N questions.
type Summary struct {
	N int `json:"n"`
	PageScores
}

func (s *Summary) add(p PageScores) {
	s.N++
	s.Recall1 += p.Recall1
	s.Recall5 += p.Recall5
	s.Recall10 += p.Recall10
	s.MRR10 += p.MRR10
	s.NDCG5 += p.NDCG5
	s.Hit1 += p.Hit1
	s.Hit5 += p.Hit5
	s.Hit10 += p.Hit10
}

func (s Summary) mean() Summary {
	if s.N == 0 {
		return s
	}
	n := float64(s.N)
	s.Recall1 /= n
	s.Recall5 /= n
	s.Recall10 /= n
	s.MRR10 /= n
	s.NDCG5 /= n
	s.Hit1 /= n
	s.Hit5 /= n
	s.Hit10 /= n
	return s
}

// Retriever returns the ranked pages (at least 10 where there are) for a question in one mode.
type Retriever func(ctx context.Context, q Question, mode string) ([]PageRef, error)

// RetrievalReport holds the metrics of every mode, overall and per evidence source.
type RetrievalReport struct {
	Modes     []string                      `json:"modes"`
	Questions int                           `json:"questions"` // questions with evidence pages, the ones scored
	Skipped   int                           `json:"skipped"`   // questions without evidence pages
	Overall   map[string]Summary            `json:"overall"`   // by mode
	BySource  map[string]map[string]Summary `json:"by_source"` // evidence source → mode → summary
	PerQ      []QuestionResult              `json:"per_question,omitempty"`
}

// QuestionResult is one question's scores in every mode.
type QuestionResult struct {
	ID     string                `json:"id"`
	Scores map[string]PageScores `json:"scores"`
}

// EvaluateRetrieval runs every question with evidence pages through retrieve in each mode and averages the scores.
// A question counts once in each of its evidence sources.
func EvaluateRetrieval(ctx context.Context, qs []Question, modes []string, retrieve Retriever) (*RetrievalReport, error) {
	r := &RetrievalReport{Modes: modes, Overall: map[string]Summary{}, BySource: map[string]map[string]Summary{}}
	for _, q := range qs {
		if len(q.EvidencePages) == 0 {
			r.Skipped++
			continue
		}
		r.Questions++
		rel := make([]PageRef, len(q.EvidencePages))
		for i, p := range q.EvidencePages {
			rel[i] = PageRef{Doc: q.Doc, Page: p}
		}
		qr := QuestionResult{ID: q.ID, Scores: map[string]PageScores{}}
		for _, m := range modes {
			ranked, err := retrieve(ctx, q, m)
			if err != nil {
				return nil, fmt.Errorf("question %s (%s): %w", q.ID, m, err)
			}
			ps := ScorePages(ranked, rel)
			qr.Scores[m] = ps
			o := r.Overall[m]
			o.add(ps)
			r.Overall[m] = o
			sources := q.EvidenceSources
			if len(sources) == 0 {
				sources = []string{"(none)"}
			}
			for _, src := range sources {
				if r.BySource[src] == nil {
					r.BySource[src] = map[string]Summary{}
				}
				b := r.BySource[src][m]
				b.add(ps)
				r.BySource[src][m] = b
			}
		}
		r.PerQ = append(r.PerQ, qr)
	}
	for m, s := range r.Overall {
		r.Overall[m] = s.mean()
	}
	for _, bm := range r.BySource {
		for m, s := range bm {
			bm[m] = s.mean()
		}
	}
	return r, nil
}

// WriteTable prints the report as an aligned table: overall, then one block per evidence source.
func (r *RetrievalReport) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scope\tmode\tn\tR@1\tR@5\tR@10\tMRR@10\tNDCG@5\tHit@1\tHit@5\tHit@10\t\n")
	row := func(scope, m string, s Summary) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", scope, m, s.N, s.Recall1,
			s.Recall5, s.Recall10, s.MRR10, s.NDCG5, s.Hit1, s.Hit5, s.Hit10)
	}
	for _, m := range r.Modes {
		row("overall", m, r.Overall[m])
	}
	srcs := make([]string, 0, len(r.BySource))
	for s := range r.BySource {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	for _, src := range srcs {
		for _, m := range r.Modes {
			if s, ok := r.BySource[src][m]; ok {
				row(shortSource(src), m, s)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d questions scored, %d without evidence pages skipped\n", r.Questions, r.Skipped)
	return err
}

// shortSource trims the dataset's long source names ("Pure-text (Plain-text)" → "Pure-text").
func shortSource(s string) string {
	if i := strings.Index(s, " ("); i > 0 {
		return s[:i]
	}
	return s
}
