package eval

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"strings"
)

// WriteHTML writes the report as one self-contained HTML file: tables, inline SVG charts (judge accuracy by
// evidence source and mode, reward distribution, steps and tokens per answer) and every scored answer with its
// run's trajectory, anchored as #run-ID so each stored run can be linked.
func (r *AnswersReport) WriteHTML(w io.Writer) error {
	data := struct {
		R                         *AnswersReport
		BySource, Reward, Steps   template.HTML
		Tokens                    template.HTML
		Overall, Sources, Formats []statRow
	}{R: r}
	data.BySource = template.HTML(r.sourceChart())
	data.Reward = template.HTML(histogram("reward", r.Modes, r.values(func(it ReportItem) float64 { return it.Reward }), 0, 1, 10))
	maxSteps, maxTok := 1.0, 1.0
	for _, it := range r.Items {
		maxSteps = math.Max(maxSteps, float64(it.Cost.Steps))
		maxTok = math.Max(maxTok, float64(it.Cost.PromptTokens+it.Cost.CompletionTokens))
	}
	data.Steps = template.HTML(histogram("tool steps", r.Modes, r.values(func(it ReportItem) float64 { return float64(it.Cost.Steps) }), 0, maxSteps+1, int(math.Min(maxSteps+1, 20))))
	data.Tokens = template.HTML(histogram("tokens", r.Modes, r.values(func(it ReportItem) float64 {
		return float64(it.Cost.PromptTokens + it.Cost.CompletionTokens)
	}), 0, maxTok*1.0001, 10))
	for _, m := range r.Modes {
		if s, ok := r.Overall[m]; ok {
			data.Overall = append(data.Overall, statRow{"overall", m, s})
		}
	}
	for _, name := range sortedKeys(r.BySource) {
		for _, m := range r.Modes {
			if s, ok := r.BySource[name][m]; ok {
				data.Sources = append(data.Sources, statRow{name, m, s})
			}
		}
	}
	for _, name := range sortedKeys(r.ByFormat) {
		for _, m := range r.Modes {
			if s, ok := r.ByFormat[name][m]; ok {
				data.Formats = append(data.Formats, statRow{name, m, s})
			}
		}
	}
	return reportTemplate.Execute(w, data)
}

type statRow struct {
	Scope, Mode string
	S           Stats
}

func (r *AnswersReport) values(f func(ReportItem) float64) map[string][]float64 {
	out := map[string][]float64{}
	for _, it := range r.Items {
		out[it.Mode] = append(out[it.Mode], f(it))
	}
	return out
}

var palette = []string{"#3b6fd4", "#d4823b", "#3bae6a", "#a13bd4"}

// sourceChart is a grouped bar chart of the judge accuracy per evidence source, one bar per mode.
func (r *AnswersReport) sourceChart() string {
	groups := append([]string{"overall"}, sortedKeys(r.BySource)...)
	const h, top, bottom, left = 220.0, 20.0, 40.0, 40.0
	bw := 14.0
	gw := bw*float64(len(r.Modes)) + 16
	width := left + gw*float64(len(groups)) + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img" aria-label="judge accuracy by evidence source and mode">`, width, h+top+bottom)
	axes(&b, left, top, width-left-10, h, 1, "%.1f")
	for gi, g := range groups {
		x0 := left + float64(gi)*gw + 8
		for mi, m := range r.Modes {
			var s Stats
			var ok bool
			if g == "overall" {
				s, ok = r.Overall[m]
			} else {
				s, ok = r.BySource[g][m]
			}
			if !ok {
				continue
			}
			bh := s.JudgeAcc * h
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %.3f (n=%d)</title></rect>`,
				x0+float64(mi)*bw, top+h-bh, bw-2, bh, palette[mi%len(palette)], html.EscapeString(g), html.EscapeString(m), s.JudgeAcc, s.N)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">%s</text>`, x0+gw/2-8, top+h+16, html.EscapeString(g))
	}
	legend(&b, r.Modes, left, top+h+32)
	b.WriteString(`</svg>`)
	return b.String()
}

// histogram draws per-mode counts of values in bins over [lo, hi).
func histogram(label string, modes []string, vals map[string][]float64, lo, hi float64, bins int) string {
	bins = max(bins, 1)
	counts := make([][]int, len(modes))
	peak := 1
	for mi, m := range modes {
		counts[mi] = make([]int, bins)
		for _, v := range vals[m] {
			i := int((v - lo) / (hi - lo) * float64(bins))
			i = min(max(i, 0), bins-1)
			counts[mi][i]++
			peak = max(peak, counts[mi][i])
		}
	}
	const h, top, bottom, left, width = 160.0, 20.0, 40.0, 40.0, 420.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img" aria-label="%s distribution">`, width, h+top+bottom, html.EscapeString(label))
	axes(&b, left, top, width-left-10, h, float64(peak), "%.3g")
	bw := (width - left - 10) / float64(bins)
	sub := bw / float64(max(len(modes), 1))
	for mi := range modes {
		for i, c := range counts[mi] {
			bh := float64(c) / float64(peak) * h
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %.3g–%.3g: %d</title></rect>`,
				left+float64(i)*bw+float64(mi)*sub, top+h-bh, math.Max(sub-1, 1), bh, palette[mi%len(palette)],
				html.EscapeString(modes[mi]), lo+float64(i)*(hi-lo)/float64(bins), lo+float64(i+1)*(hi-lo)/float64(bins), c)
		}
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11">%.3g</text><text x="%.1f" y="%.1f" font-size="11" text-anchor="end">%.3g</text>`,
		left, top+h+14, lo, width-10, top+h+14, hi)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">%s</text>`, left+(width-left)/2, top+h+14, html.EscapeString(label))
	legend(&b, modes, left, top+h+32)
	b.WriteString(`</svg>`)
	return b.String()
}

func axes(b *strings.Builder, x, y, w, h, maxV float64, f string) {
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`, x, y+h, x+w, y+h)
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`, x, y, x, y+h)
	for _, t := range []float64{0, 0.5, 1} {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="end">`+f+`</text>`, x-4, y+h-t*h+4, t*maxV)
	}
}

func legend(b *strings.Builder, modes []string, x, y float64) {
	for i, m := range modes {
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/><text x="%.1f" y="%.1f" font-size="11">%s</text>`,
			x+float64(i)*90, y-9, palette[i%len(palette)], x+float64(i)*90+14, y, html.EscapeString(m))
	}
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": func(f float64) string { return fmt.Sprintf("%.1f", f*100) },
	"f3":  func(f float64) string { return fmt.Sprintf("%.3f", f) },
	"f1":  func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"sec": func(ms float64) string { return fmt.Sprintf("%.1f", ms/1000) },
	"traj": func(c Call) string {
		t := TrajectoryOf(c)
		return t.PromptText() + t.Response()
	},
	"join": func(xs []string) string { return strings.Join(xs, ", ") },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Proofglass answer evaluation {{.R.Evaluation}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}.ok{color:#1a7f37}.bad{color:#b42318}
pre{white-space:pre-wrap;background:#f7f7f7;padding:8px;max-height:400px;overflow:auto}
figure{display:inline-block;margin:0 24px 16px 0}figcaption{font-weight:600}
</style></head><body>
<h1>Answer evaluation {{.R.Evaluation}}</h1>
<p>{{.R.Questions}} questions × {{.R.Samples}} sample(s) per mode; judge: {{.R.Judge}}; {{.R.RunErrs}} run errors,
{{.R.JudgeErrs}} judge errors. Accuracy and F1 are MMLongBench-Doc's rule-based scores; judge is the VRAG-RL judge's
binary verdict; reward = 0.7·judge + 0.1·format + 0.2·NDCG (0 when the format check fails).</p>
{{define "stats"}}<table><tr><th class="l">scope</th><th class="l">mode</th><th>n</th><th>acc %</th><th>F1 %</th><th>judge %</th>
<th>reward</th><th>NDCG</th><th>format</th><th>answered</th><th>calls</th><th>tokens</th><th>images</th><th>visual tok.</th><th>steps</th><th>wall s</th></tr>
{{range .}}<tr><td class="l">{{.Scope}}</td><td class="l">{{.Mode}}</td><td>{{.S.N}}</td><td>{{pct .S.Accuracy}}</td><td>{{pct .S.F1}}</td>
<td>{{pct .S.JudgeAcc}}</td><td>{{f3 .S.Reward}}</td><td>{{f3 .S.NDCG}}</td><td>{{f3 .S.Format}}</td><td>{{f3 .S.Answered}}</td>
<td>{{f1 .S.ModelCalls}}</td><td>{{f1 .S.Tokens}}</td><td>{{f1 .S.Images}}</td><td>{{f1 .S.VisualTok}}</td><td>{{f1 .S.Steps}}</td><td>{{sec .S.WallMS}}</td></tr>
{{end}}</table>{{end}}
<h2>Overall</h2>{{template "stats" .Overall}}
<figure><figcaption>Judge accuracy by evidence source and mode</figcaption>{{.BySource}}</figure>
<figure><figcaption>Reward distribution</figcaption>{{.Reward}}</figure>
<figure><figcaption>Tool steps per answer</figcaption>{{.Steps}}</figure>
<figure><figcaption>Tokens per answer</figcaption>{{.Tokens}}</figure>
<h2>By evidence source</h2>{{template "stats" .Sources}}
<h2>By answer format</h2>{{template "stats" .Formats}}
<h2>Answers</h2>
<table><tr><th class="l">question</th><th class="l">mode</th><th>sample</th><th class="l">run</th><th class="l">answer (short)</th>
<th class="l">reference</th><th>score</th><th>judge</th><th>reward</th><th>advantage</th></tr>
{{range .R.Items}}<tr><td class="l">{{.QuestionID}}</td><td class="l">{{.Mode}}</td><td>{{.Sample}}</td>
<td class="l">{{if .RunID}}<a href="#run-{{.RunID}}">run {{.RunID}}</a>{{end}}</td><td class="l">{{.Short}}</td><td class="l">{{.Reference}}</td>
<td>{{f3 .Score}}</td><td class="{{if ge .Judge 0.5}}ok{{else}}bad{{end}}">{{.Judge}}</td><td>{{f3 .Reward}}</td><td>{{f3 .Advantage}}</td></tr>
{{end}}</table>
<h2>Runs</h2>
{{range .R.Items}}<section id="run-{{.RunID}}"><h3>run {{.RunID}}: {{.QuestionID}} ({{.Mode}}, sample {{.Sample}})</h3>
<p><b>Question:</b> {{.Question}}<br><b>Reference:</b> {{.Reference}} ({{.AnswerFormat}}; {{join .Sources}})<br>
<b>Answer:</b> {{.Answer}}<br><b>Status:</b> {{.Status}}{{if .RunError}} — {{.RunError}}{{end}}<br>
<b>Pages shown:</b> {{join .Shown}}<br>
<b>Scores:</b> rule {{f3 .Score}}, judge {{.Judge}} ({{.JudgeKind}}{{if .JudgeError}}: {{.JudgeError}}{{end}}), format {{.Format}}, NDCG {{f3 .NDCG}}, reward {{f3 .Reward}}, advantage {{f3 .Advantage}}<br>
<b>Cost:</b> {{.Cost.ModelCalls}} model calls, {{.Cost.PromptTokens}}+{{.Cost.CompletionTokens}} tokens, {{.Cost.Images}} images ({{.Cost.VisualTokens}} visual tokens), {{.Cost.Steps}} steps, {{.Cost.WallMS}} ms<br>
Replay: <code>proofglass runs show {{.RunID}}</code></p>
{{range .Calls}}<details><summary>model call {{.Step}}{{if .NodeID}} — node {{.NodeID}}{{if .OnAnswerPath}} (answer path){{end}}{{end}}</summary><pre>{{traj .}}</pre></details>{{end}}
</section>
{{end}}
</body></html>
`))
