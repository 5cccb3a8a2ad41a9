package learnrank

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"proofglass/backend/kb"
	"proofglass/backend/questioner"
	"proofglass/backend/rank"
	"proofglass/backend/search"
)

// VisualReport counts what the vision model wrote: the pages it was shown, the questions that passed the checks
// against the page and why the others did not, and of the training documents' questions those kept (today's
// ranking gets them wrong), those it already ranks first (easy) and those whose page no search found (unfound).
type VisualReport struct {
	Pages    int            `json:"pages"`
	Written  int            `json:"written"`
	Rejected map[string]int `json:"rejected"`
	Kept     int            `json:"kept"`
	Easy     int            `json:"easy"`
	Unfound  int            `json:"unfound"`
	Held     int            `json:"held"`
	Seconds  float64        `json:"seconds"`
}

// minVisualWords is the least text a page needs for the vision model's questions about it to be checked against it.
const minVisualWords = 10

// visualQuestions has the vision model write questions from a few of the document's pages and keeps those worth
// training or measuring on: all that pass the checks for a held-out document, and for a training one those today's
// ranking (current; nil: the hand-set weights) does not put first while its page is among the candidates.
func visualQuestions(ctx context.Context, k *kb.KB, s *search.Searcher, pages []questioner.Page, d kb.Document, kind string,
	isHeld bool, current *rank.Model, o Options, vr *VisualReport) ([]asked, error) {
	start := time.Now()
	defer func() { vr.Seconds += time.Since(start).Seconds() }()
	var out []asked
	for _, p := range visualPages(pages, o.VisualPages, o.Seed) {
		res, err := o.Visual.Write(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("teach ranker: %w", err)
		}
		vr.Pages++
		vr.Written += len(res.Questions)
		for why, n := range res.Rejected {
			vr.Rejected[why] += n
		}
		for _, q := range res.Questions {
			a, err := ask(ctx, k, s, q, d, kind, o)
			if err != nil {
				return nil, err
			}
			if isHeld {
				vr.Held++
				out = append(out, a)
				continue
			}
			switch rankOf(a.cands, a, current) {
			case 0:
				vr.Unfound++
			case 1:
				vr.Easy++
			default:
				vr.Kept++
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// visualPages are up to n (default 2) of the pages with text enough to check questions against, chosen by the seed
// alone, in page order.
func visualPages(pages []questioner.Page, n int, seed uint64) []questioner.Page {
	if n <= 0 {
		n = 2
	}
	type keyed struct {
		key uint64
		i   int
	}
	var ks []keyed
	for i, p := range pages {
		if len(strings.Fields(p.Unit.Text)) < minVisualWords {
			continue
		}
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%d", seed, p.Unit.ID)
		ks = append(ks, keyed{h.Sum64(), i})
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	ks = ks[:min(n, len(ks))]
	slices.SortFunc(ks, func(a, b keyed) int { return a.i - b.i })
	out := make([]questioner.Page, len(ks))
	for i, kd := range ks {
		out[i] = pages[kd.i]
	}
	return out
}
