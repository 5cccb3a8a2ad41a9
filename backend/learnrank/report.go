package learnrank

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteTable writes the report as Markdown: what was measured, then hit@1/5/10 and MRR of each ranker on the
// held-out questions, over the whole library and by document, question kind and document kind.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d documents, %d pages. Questions written from the pages: %d from %d documents to train on, %d from %d documents held out (never trained on) to measure; writing and searching them took %.1f s.\n",
		r.Documents, r.Pages, r.TrainQuestions, r.TrainDocuments, r.HeldQuestions, r.HeldDocuments, r.QuestionSeconds)
	if r.Trained {
		fmt.Fprintf(&b, "Trained two rankers in %.2f s (for searches of the whole library and within chosen documents).\n", r.TrainSeconds)
		for _, k := range []struct{ what, kept string }{{"whole library", r.Kept}, {"within chosen documents", r.KeptDocument}} {
			if k.kept != "" {
				fmt.Fprintf(&b, "- %s: not saved, searches keep the %s.\n", k.what, k.kept)
			} else {
				fmt.Fprintf(&b, "- %s: saved with the library; those searches use it.\n", k.what)
			}
		}
		for _, k := range []struct {
			what string
			c    ModelChoice
		}{{"whole library", r.Choice}, {"within chosen documents", r.ChoiceDocument}} {
			if k.c.Linear < 0 {
				continue
			}
			form := "linear"
			if k.c.Boosted {
				form = "linear with boosted trees"
			}
			fmt.Fprintf(&b, "- %s: %s (on half the training documents, MRR of the other half: linear %.3f, with trees %.3f; L2 %.2g).\n",
				k.what, form, k.c.Linear, k.c.Trees, k.c.L2)
		}
		if r.ModelBytes > 0 {
			fmt.Fprintf(&b, "Saved models: %d bytes.\n", r.ModelBytes)
		}
	}
	if v := r.Visual; v != nil {
		fmt.Fprintf(&b, "Vision model: shown %d pages in %.1f s, wrote %d questions that name what the page says", v.Pages, v.Seconds, v.Written)
		if len(v.Rejected) > 0 {
			keys := make([]string, 0, len(v.Rejected))
			for k := range v.Rejected {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			b.WriteString(" (set aside:")
			for i, k := range keys {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, " %d %s", v.Rejected[k], k)
			}
			b.WriteString(")")
		}
		fmt.Fprintf(&b, "; of the training documents' questions %d were kept (today's ranking misses them), %d it already ranks first, %d found no page; %d held out.\n",
			v.Kept, v.Easy, v.Unfound, v.Held)
	}
	b.WriteString("\n| held-out questions | n | ranker | hit@1 | hit@5 | hit@10 | MRR@10 |\n|---|---|---|---|---|---|---|\n")
	row := func(name string, p Pair) {
		m := p.HandSet
		fmt.Fprintf(&b, "| %s | %d | hand-set | %.3f | %.3f | %.3f | %.3f |\n", name, m.Questions, m.Hit1, m.Hit5, m.Hit10, m.MRR)
		if l := p.Learned; l != nil {
			fmt.Fprintf(&b, "| | | learned | %.3f (%+.3f) | %.3f (%+.3f) | %.3f (%+.3f) | %.3f (%+.3f) |\n",
				l.Hit1, l.Hit1-m.Hit1, l.Hit5, l.Hit5-m.Hit5, l.Hit10, l.Hit10-m.Hit10, l.MRR, l.MRR-m.MRR)
		}
	}
	row("**whole library**", r.Library)
	row("**within its document**", r.WithinDocument)
	for _, group := range []struct {
		name string
		m    map[string]Pair
	}{{"question kind", r.ByQuestionKind}, {"document kind", r.ByDocumentKind}, {"document", r.ByDocument}} {
		keys := make([]string, 0, len(group.m))
		for k := range group.m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			row(group.name+": "+k, group.m[k])
		}
	}
	if len(r.Weights) > 0 {
		b.WriteString("\nLearned weights (per unit of each feature): ")
		keys := make([]string, 0, len(r.Weights))
		for k := range r.Weights {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %.3g", k, r.Weights[k])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
