package grounding

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
)

// citedPage checks answer against one cited page holding text.
func citedPage(t *testing.T, answer, text string) agent.GroundingInfo {
	t.Helper()
	p := NewPage(kb.Unit{ID: 1, DocumentID: 1, Ordinal: 1, Text: text}, "report.pdf")
	info, err := Check(context.Background(), answer, Evidence{Cited: []*Page{p}})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// statusOf is the status of the claim written as text.
func statusOf(t *testing.T, info agent.GroundingInfo, text string) string {
	t.Helper()
	for _, c := range info.Claims {
		if strings.TrimSpace(c.Text) == text {
			return c.Status
		}
	}
	t.Fatalf("no claim %q among %+v", text, info.Claims)
	return ""
}

// How an answer's own numbers are read, and what they are compared with.
func TestReadings(t *testing.T) {
	cases := map[string]struct {
		answer, page, claim, want string
	}{
		// An English answer's "2,000" is two thousand, never 2.
		// An English answer's "2,000" is two thousand, never 2: the same digits a thousand times over are a mismatch.
		"comma groups thousands in an English answer": {"Revenue was $1,500 billion.", "Revenue was $1.5 billion.", "$1,500 billion", agent.GroundMismatch},
		"the same amount written the same way":        {"Revenue was $1,500 billion.", "Revenue was $1,500 billion.", "$1,500 billion", agent.GroundCitedPage},
		"a page's decimal comma still reads":          {"Der Umsatz betrug 12,5 Mio.", "Umsatz 12,5 Mio. EUR", "12,5", agent.GroundCitedPage},
		// A percentage in parentheses is a label, not a negative; its alteration is caught.
		"a parenthesised share is positive":        {"Satisfied: (51 %) of respondents.", "Satisfied respondents (51 %)", "(51 %)", agent.GroundCitedPage},
		"a parenthesised share altered":            {"Satisfied: (53 %) of respondents.", "Satisfied respondents (51 %)", "(53 %)", agent.GroundMismatch},
		"a parenthesised share against a bare one": {"Satisfied: (53 %) of respondents.", "Satisfied respondents 53 %", "(53 %)", agent.GroundCitedPage},
		"a parenthesised share altered, bare page": {"Satisfied: (55 %) of respondents.", "Satisfied respondents 53 %", "(55 %)", agent.GroundMismatch},
		"a share is not a bare count":              {"Turnout was 21 % in the north.", "Turnout in the north: 21 polling stations", "21 %", agent.GroundNotFound},
		"an accounting negative is still signed":   {"Net loss was (1,234).", "Net loss (1,234)", "(1,234)", agent.GroundCitedPage},
		// A year inside a date grounds the year; an altered date is a mismatch.
		"a year inside a date":   {"The fiscal year ended in 2015.", "for the fiscal year ended December 31, 2015", "2015", agent.GroundCitedPage},
		"an altered date":        {"The fiscal year ended December 31, 2016.", "for the fiscal year ended December 31, 2015", "December 31, 2016", agent.GroundMismatch},
		"a true date":            {"The fiscal year ended December 31, 2015.", "for the fiscal year ended December 31, 2015", "December 31, 2015", agent.GroundCitedPage},
		"an altered ISO date":    {"Filed on 2015-03-02 with the SEC.", "Filed with the SEC on 2015-02-27", "2015-03-02", agent.GroundMismatch},
		"a date on another line": {"The meeting was held on 2015-03-02.", "Dividend paid 2015-02-27", "2015-03-02", agent.GroundNotFound},
		// Names match on word boundaries.
		"a name inside a longer word": {"Mayor Tushs said so.", "Mayor Tush should resign", "Mayor Tushs", agent.GroundNotFound},
		"a name as written":           {"Mayor Tush said so.", "Mayor Tush should resign", "Mayor Tush", agent.GroundCitedPage},
		"a possessive name":           {"Mayor Tush said so.", "Mayor Tush's office", "Mayor Tush", agent.GroundCitedPage},
		"a Chinese title":             {"见《年度报告》。", "公司年度报告摘要", "年度报告", agent.GroundCitedPage},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			info := citedPage(t, c.answer, c.page)
			if got := statusOf(t, info, c.claim); got != c.want {
				t.Errorf("%q against %q: %s, want %s (%+v)", c.claim, c.page, got, c.want, info.Claims)
			}
		})
	}
}

// Hostile answers: numbers too large to hold are never green and always encode; the claims checked are capped;
// the work stays linear; a cancelled check stops.
func TestHostileAnswers(t *testing.T) {
	huge := strings.Repeat("9", 310)
	for name, answer := range map[string]string{
		"310 digits": "The total is " + huge + ".",
		"亿 repeated": "总额为一" + strings.Repeat("亿", 60) + "元。",
		"scaled":     "The total is " + huge[:300] + " trillion.",
	} {
		t.Run(name, func(t *testing.T) {
			info := citedPage(t, answer, "The total is "+huge+" and 一"+strings.Repeat("亿", 60)+"元")
			if _, err := json.Marshal(info); err != nil {
				t.Fatalf("the grounding does not encode: %v", err)
			}
			for _, c := range info.Claims {
				if c.Value != nil && (math.IsInf(*c.Value, 0) || math.IsNaN(*c.Value)) {
					t.Errorf("claim %q has value %v", c.Text, *c.Value)
				}
				if c.Status == agent.GroundRegion || c.Status == agent.GroundCitedPage {
					if c.Value == nil && c.Kind != KindName && c.Kind != KindQuote {
						t.Errorf("claim %q too large to read is %s", c.Text, c.Status)
					}
				}
			}
		})
	}

	var b strings.Builder
	for i := range 5000 {
		b.WriteString("Item ")
		b.WriteString(strings.Repeat("1", i%7+1))
		b.WriteString(" costs 3.5%. ")
	}
	info := citedPage(t, b.String(), "costs 3.5%")
	if len(info.Claims) > MaxClaims+1 || info.Unchecked == 0 {
		t.Errorf("%d claims checked, %d unchecked: want at most %d checked and the rest counted", len(info.Claims), info.Unchecked, MaxClaims)
	}
	if !strings.Contains(info.Summary, "not checked") {
		t.Errorf("summary %q does not say some claims were not checked", info.Summary)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := NewPage(kb.Unit{ID: 1, DocumentID: 1, Ordinal: 1, Text: "costs 3.5%"}, "r.pdf")
	if _, err := Check(ctx, "It costs 3.5%.", Evidence{Cited: []*Page{p}}); err == nil {
		t.Error("a cancelled check did not stop")
	}
}

// The scan of "1,1,1,…" is linear: doubling the answer doubles the work, give or take, rather than quadrupling it.
// Work is counted in digit groups the number reader reads, not timed.
func TestNumberScanIsLinear(t *testing.T) {
	read := func(n int) int {
		t0 := newScanText(strings.Repeat("1,", n) + "1")
		for i := 0; i < len(t0.r); {
			_, _, end, ok := t0.number(i, false)
			if !ok || end <= i {
				i++
				continue
			}
			i = end
		}
		return t0.reads
	}
	small, large := read(4000), read(8000)
	if float64(large) > 2.5*float64(small) {
		t.Errorf("groups read: %d for 4000 groups, %d for 8000: not linear", small, large)
	}
}

// BenchmarkHugeAnswer checks a 1 MB answer of "1,1,1,…" and of prose full of figures against a cited page: the
// work is linear and the claims capped.
//
//	go test -run X -bench HugeAnswer ./backend/grounding/
func BenchmarkHugeAnswer(b *testing.B) {
	p := NewPage(kb.Unit{ID: 1, DocumentID: 1, Ordinal: 1, Text: "Revenue was 3.5% higher at $1,048 million in 2015"}, "r.pdf")
	for name, answer := range map[string]string{
		"commas": strings.Repeat("1,", 1<<19),
		"prose":  strings.Repeat("Revenue rose 3.5% to $1,048 million in 2015. ", 1<<20/46),
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Check(context.Background(), answer, Evidence{Cited: []*Page{p}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Region OCR reads a zoomed region that the text layer does not cover (a scan under a stamp), not only pages
// without any text.
func TestWordsIn(t *testing.T) {
	stamp := kb.Unit{Width: 600, Height: 800, Text: "Filed 03/02/15", Words: []kb.Word{{Text: "Filed", X0: 20, Y0: 10, X1: 60, Y1: 20}}}
	cases := map[string]struct {
		u    kb.Unit
		r    [4]float64
		want bool
	}{
		"the stamp's line":           {stamp, [4]float64{0, 0, 1, 0.05}, true},
		"the scan below it":          {stamp, [4]float64{0, 0.2, 1, 0.9}, false},
		"text without boxes":         {kb.Unit{Width: 600, Height: 800, Text: "all of it"}, [4]float64{0, 0.2, 1, 0.9}, true},
		"a page with no text at all": {kb.Unit{Width: 600, Height: 800}, [4]float64{0, 0, 1, 1}, false},
	}
	for name, c := range cases {
		if got := wordsIn(c.u, c.r); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}
