package grounding

import (
	"context"
	"testing"

	"proofglass/backend/agent"
)

// TestGroundChinese grounds Chinese numerals, scale words and a date in zhnumber.pdf, whose page 1 shows
// \zhnumber{2012020120} typeset as 二十亿零一千二百零二万零一百二十 and a later page 2012 年 5 月 21 日.
func TestGroundChinese(t *testing.T) {
	k, docs := ingested(t, false, "pdf/cjk/zhnumber.pdf")
	p1 := docs["zhnumber.pdf"][0]
	answer := "示例中，二十亿零一千二百零二万零一百二十即20.1202012亿，也写作2,012,020,120；日期示例为2012年5月21日。"
	g := &Grounder{KB: k.Content}
	info, err := g.Ground(context.Background(),
		agent.AnswerInfo{Text: answer, Citations: []agent.Citation{{UnitID: ref(p1), DocumentName: "zhnumber.pdf", Page: 1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct{ claim, status string }{
		{"二十亿零一千二百零二万零一百二十", agent.GroundCitedPage},
		{"20.1202012亿", agent.GroundCitedPage}, // the same value with a scale word
		{"2,012,020,120", agent.GroundCitedPage},
		{"2012年5月21日", agent.GroundElsewhere},
	} {
		c := claimNamed(t, info, w.claim)
		if c.Status != w.status {
			t.Errorf("%q: %s (%s), want %s", w.claim, c.Status, c.Note, w.status)
		}
		if c.Status == agent.GroundElsewhere && (c.Found == nil || c.Found.Page < 2 || len(c.Found.Boxes) == 0) {
			t.Errorf("%q: evidence %+v, want a later page with boxes", w.claim, c.Found)
		}
	}
	if info.Figures != 4 {
		t.Errorf("%d figures, want 4: %+v", info.Figures, info.Claims)
	}
}
