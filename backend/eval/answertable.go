package eval

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
)

// WriteTable prints the report: overall, then per evidence source and per answer format, one row per mode.
func (r *AnswersReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "evaluation %d: %d questions × %d sample(s), judge %s\n", r.Evaluation, r.Questions, r.Samples, r.Judge)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scope\tmode\tn\tacc\tF1\tjudge\treward\tNDCG\tformat\tanswered\tcalls\ttokens\timages\tvis.tok\tsteps\twall s\t\n")
	row := func(scope, m string, s Stats) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%.1f\t%.0f\t%.1f\t%.0f\t%.1f\t%.1f\t\n",
			scope, m, s.N, s.Accuracy, s.F1, s.JudgeAcc, s.Reward, s.NDCG, s.Format, s.Answered, s.ModelCalls, s.Tokens,
			s.Images, s.VisualTok, s.Steps, s.WallMS/1000)
	}
	for _, m := range r.Modes {
		if s, ok := r.Overall[m]; ok {
			row("overall", m, s)
		}
	}
	for _, block := range []struct {
		prefix string
		m      map[string]map[string]Stats
	}{{"source ", r.BySource}, {"format ", r.ByFormat}} {
		for _, name := range sortedKeys(block.m) {
			for _, m := range r.Modes {
				if s, ok := block.m[name][m]; ok {
					row(block.prefix+name, m, s)
				}
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := r.writeGrounding(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d run errors, %d judge errors\n", r.RunErrs, r.JudgeErrs)
	return err
}

// writeGrounding prints, per mode, how many answers the grounding pass could check, how many of those it found
// grounded in their cited evidence, and the judge's accuracy on grounded and ungrounded answers apart. Nothing is
// printed when no answer was checked (runs made before the pass existed).
func (r *AnswersReport) writeGrounding(w io.Writer) error {
	checked := false
	for _, s := range r.Overall {
		checked = checked || s.NGrounded+s.NUngrounded > 0
	}
	if !checked {
		return nil
	}
	fmt.Fprintf(w, "grounding (answers whose every figure and name was found in the evidence they cite):\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "mode\tchecked\tgrounded\tjudge grounded\t(n)\tjudge ungrounded\t(n)\t\n")
	for _, m := range r.Modes {
		if s, ok := r.Overall[m]; ok {
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.3f\t%d\t%.3f\t%d\t\n", m, s.Checked, s.Grounded, s.JudgeGrounded, s.NGrounded,
				s.JudgeUngrounded, s.NUngrounded)
		}
	}
	return tw.Flush()
}

// Comparison is the difference between two evaluations (B − A), per mode both have.
type Comparison struct {
	A, B     int64                            `json:"-"`
	Overall  map[string]StatsDelta            `json:"overall"`
	BySource map[string]map[string]StatsDelta `json:"by_source"`
	// Fixed and Broken count questions (per mode, first sample) whose judge verdict went from wrong to right and
	// from right to wrong.
	Fixed  map[string][]string `json:"fixed"`
	Broken map[string][]string `json:"broken"`
}

// StatsDelta holds both sides of a comparison.
type StatsDelta struct {
	A Stats `json:"a"`
	B Stats `json:"b"`
}

// Compare lines up two reports.
func Compare(a, b *AnswersReport) *Comparison {
	c := &Comparison{A: a.Evaluation, B: b.Evaluation, Overall: map[string]StatsDelta{},
		BySource: map[string]map[string]StatsDelta{}, Fixed: map[string][]string{}, Broken: map[string][]string{}}
	for m, sa := range a.Overall {
		if sb, ok := b.Overall[m]; ok {
			c.Overall[m] = StatsDelta{sa, sb}
		}
	}
	for src, am := range a.BySource {
		for m, sa := range am {
			if sb, ok := b.BySource[src][m]; ok {
				if c.BySource[src] == nil {
					c.BySource[src] = map[string]StatsDelta{}
				}
				c.BySource[src][m] = StatsDelta{sa, sb}
			}
		}
	}
	verdicts := func(r *AnswersReport) map[[2]string]float64 {
		v := map[[2]string]float64{}
		for _, it := range r.Items {
			if it.Sample == 0 {
				v[[2]string{it.Mode, it.QuestionID}] = it.Judge
			}
		}
		return v
	}
	va, vb := verdicts(a), verdicts(b)
	for _, k := range sortedPairs(va) {
		jb, ok := vb[k]
		if !ok {
			continue
		}
		switch ja := va[k]; {
		case ja < 0.5 && jb >= 0.5:
			c.Fixed[k[0]] = append(c.Fixed[k[0]], k[1])
		case ja >= 0.5 && jb < 0.5:
			c.Broken[k[0]] = append(c.Broken[k[0]], k[1])
		}
	}
	return c
}

func sortedPairs(m map[[2]string]float64) [][2]string {
	out := make([][2]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

// WriteTable prints the comparison: each metric as A → B (difference).
func (c *Comparison) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "evaluation %d → %d\n", c.A, c.B)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scope\tmode\tacc\tF1\tjudge\treward\tNDCG\ttokens\twall s\t\n")
	cell := func(a, b float64, f string) string {
		return fmt.Sprintf(f+"→"+f+" (%+"+f[1:]+")", a, b, b-a)
	}
	row := func(scope, m string, d StatsDelta) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", scope, m,
			cell(d.A.Accuracy, d.B.Accuracy, "%.3f"), cell(d.A.F1, d.B.F1, "%.3f"), cell(d.A.JudgeAcc, d.B.JudgeAcc, "%.3f"),
			cell(d.A.Reward, d.B.Reward, "%.3f"), cell(d.A.NDCG, d.B.NDCG, "%.3f"), cell(d.A.Tokens, d.B.Tokens, "%.0f"),
			cell(d.A.WallMS/1000, d.B.WallMS/1000, "%.1f"))
	}
	for _, m := range sortedKeys(c.Overall) {
		row("overall", m, c.Overall[m])
	}
	for _, src := range sortedKeys(c.BySource) {
		for _, m := range sortedKeys(c.BySource[src]) {
			row("source "+src, m, c.BySource[src][m])
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range sortedKeys(c.Overall) {
		fmt.Fprintf(w, "%s: %d fixed %v, %d broken %v\n", m, len(c.Fixed[m]), c.Fixed[m], len(c.Broken[m]), c.Broken[m])
	}
	return nil
}
