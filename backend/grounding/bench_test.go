package grounding

import (
	"context"
	"strings"
	"testing"

	"proofglass/backend/agent"
)

// BenchmarkGrounding measures one grounding pass over an answer with 50 or more figures and names citing 10 pages of
// blood_loss_report.pdf (a region on one of them), as the knowledge base stores them: the units are read from
// SQLite, their words decoded and indexed, and two figures found nowhere make the pass read the rest of the
// document too. The goal is under 50 ms per answer without OCR.
func BenchmarkGrounding(b *testing.B) {
	k, docs := ingested(b, false, bloodLoss)
	pages := docs["blood_loss_report.pdf"]
	if len(pages) < 10 {
		b.Fatalf("%d pages, want at least 10", len(pages))
	}
	var cites []agent.Citation
	for _, u := range pages[:10] {
		cites = append(cites, cite(u, nil))
	}
	row := rowRegion(b, pages[1], "3370.0")
	cites[1].Region = row
	answer := strings.Repeat("The median neonatal weight was 3370.0 g (3090.0-3650.0) after vaginal delivery, 3200.0 g after a "+
		"planned cesarean and 3340.0 g after an unplanned one; 54 patients with PPH were needed at a power of 80% and a "+
		"PPH-rate of 4.9%, so 1100 patients; Christian Haslinger and Torsten Hothorn wrote \"The Impact of Prepartum "+
		"Factor XIII Activity\". ", 5) + "Unlisted: 123456.7 and 98.76%."
	trail := []agent.Event{shown(pages[:10]...), crop(pages[1], row)}
	g := &Grounder{KB: k.Content}
	ctx := context.Background()
	info, err := g.Ground(ctx, agent.AnswerInfo{Text: answer, Citations: cites}, trail)
	if err != nil {
		b.Fatal(err)
	}
	if len(info.Claims) < 50 {
		b.Fatalf("%d claims, want at least 50", len(info.Claims))
	}
	b.Logf("%d claims: %s", len(info.Claims), info.Summary)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := g.Ground(ctx, agent.AnswerInfo{Text: answer, Citations: cites}, trail); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/answer")
}
