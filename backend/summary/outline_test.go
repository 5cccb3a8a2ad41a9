package summary

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

type wantSection struct {
	number, title string
	level, page   int
}

func checkSections(t *testing.T, g Glance, want []wantSection) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, s := range g.Sections {
			if s.Title == w.title && s.Number == w.number {
				found = true
				if s.Page != w.page || s.Level != w.level {
					t.Errorf("section %s %q: page %d level %d, want page %d level %d", w.number, w.title, s.Page, s.Level, w.page, w.level)
				}
				if s.Region == nil || s.Region[2] <= s.Region[0] || s.Region[3] <= s.Region[1] {
					t.Errorf("section %q has no region: %v", w.title, s.Region)
				}
			}
		}
		if !found {
			t.Errorf("section %s %q not found in %+v", w.number, w.title, g.Sections)
		}
	}
}

// The sections, tables, figures and key figures of a real statistics report, against what its own PDF outline
// (mutool show … outline) and its pages say.
func TestOutlineOfARealReport(t *testing.T) {
	k, ids := ingested(t, "pdf/real/blood_loss_report.pdf")
	g, err := Outline(context.Background(), k, ids["blood_loss_report.pdf"])
	if err != nil {
		t.Fatal(err)
	}
	if g.Pages != 19 || !strings.HasPrefix(g.Title, "Statistical Supplementary Material: The Impact of Prepartum Factor XIII") {
		t.Errorf("pages %d, title %q", g.Pages, g.Title)
	}
	checkSections(t, g, []wantSection{
		{"1", "Maternal Characteristics", 1, 1},
		{"2", "Statistical Analysis", 1, 1},
		{"2.1", "Sample Size Calculation", 2, 1},
		{"2.2", "Methods", 2, 3},
		{"2.3", "Results: Models for Measured Blood Loss", 2, 5},
		{"2.4", "Results: Identification of Effect Modifiers", 2, 13},
		{"", "References", 1, 17},
	})
	for _, s := range g.Sections {
		if strings.Contains(s.Title, "Probability") || strings.Contains(s.Title, "Christian Haslinger") {
			t.Errorf("a chart label or the authors read as a section: %+v", s)
		}
	}
	captions := map[string]int{}
	for _, tb := range g.Tables {
		if tb.Caption != "" {
			captions[tb.Caption[:7]] = tb.Page
			if tb.Caption[:7] == "Table 1" && (tb.Rows < 40 || tb.Columns < 4) {
				t.Errorf("Table 1 is %d × %d, want the 52-row characteristics table", tb.Rows, tb.Columns)
			}
		}
		if tb.Region == nil {
			t.Errorf("table without region: %+v", tb)
		}
	}
	for label, page := range map[string]int{"Table 1": 2, "Table 2": 11, "Table 3": 11} {
		if captions[label] != page {
			t.Errorf("%s on page %d, want %d (captions %v)", label, captions[label], page, captions)
		}
	}
	figures := map[string]int{}
	for _, f := range g.Figures {
		figures[f.Label] = f.Page
		if !strings.HasPrefix(f.Caption, f.Label+":") || f.Region == nil {
			t.Errorf("figure %+v", f)
		}
	}
	// Figure 4 is named in the running text of page 10 too ("… in Figure 4. In the relevant domain"); its caption is on page 12
	for label, page := range map[string]int{"Figure 1": 3, "Figure 2": 4, "Figure 3": 8, "Figure 4": 12, "Figure 5": 13, "Figure 6": 15, "Figure 7": 16} {
		if figures[label] != page {
			t.Errorf("%s on page %d, want %d", label, figures[label], page)
		}
	}
	if len(figures) != 7 {
		t.Errorf("figures %v, want 7", figures)
	}
	keys := map[string]int{}
	for _, kf := range g.KeyFigures {
		keys[kf.Figure] = kf.Page
		if kf.Region == nil || !strings.Contains(kf.Text, kf.Figure) {
			t.Errorf("key figure %+v", kf)
		}
	}
	for fig, page := range map[string]int{"83 IU/dL": 1, "4.9%": 1} {
		if keys[fig] != page {
			t.Errorf("key figure %s on page %d, want %d (%v)", fig, keys[fig], page, keys)
		}
	}
	md := g.Markdown()
	for _, want := range []string{"## Sections", "- 1 Maternal Characteristics — p. 1", "  - 2.1 Sample Size Calculation — p. 1",
		"- p. 2 — Table 1: Distribution", "- p. 12 — Figure 4: Measured", "- **4.9%** — Supposing"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, g); err != nil {
		t.Fatal(err)
	}
	var back Glance
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Sections) != len(g.Sections) {
		t.Fatalf("json round trip: %v, %d sections", err, len(back.Sections))
	}
}

// Chinese headings (第 N 节, numbered 6.1 …) from two real CJK PDFs, with the pages their own outlines give, and
// the running headers (第 1 节 简介 2, at the top of the next pages) left out.
func TestOutlineOfChinesePDFs(t *testing.T) {
	k, ids := ingested(t, "pdf/cjk/zhlipsum.pdf", "pdf/cjk/zhnumber.pdf")
	g, err := Outline(context.Background(), k, ids["zhlipsum.pdf"])
	if err != nil {
		t.Fatal(err)
	}
	if g.Title != "zhlipsum: 中文乱数假文（Lorem ipsum）" {
		t.Errorf("title %q", g.Title)
	}
	checkSections(t, g, []wantSection{
		{"第 1 节", "简介", 1, 2}, {"第 2 节", "使用说明", 1, 2}, {"第 3 节", "编程接口", 1, 3}, {"第 4 节", "兼容性信息", 1, 3},
		{"第 5 节", "已知问题", 1, 4}, {"第 6 节", "实现细节", 1, 4}, {"6.1", "内部变量和函数", 2, 4}, {"6.4", "输出假文", 2, 8},
	})
	n := 0
	for _, s := range g.Sections {
		if s.Title == "简介" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("简介 listed %d times: a running header read as a section", n)
	}
	cjkTable := false
	for _, tb := range g.Tables {
		cjkTable = cjkTable || tb.Caption == "表 1 预定义假文" && tb.Page == 3
	}
	if !cjkTable {
		t.Errorf("表 1 预定义假文 (page 3) not among the tables: %+v", g.Tables)
	}
	g, err = Outline(context.Background(), k, ids["zhnumber.pdf"])
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, g, []wantSection{{"第 1 节", "简介", 1, 1}, {"第 2 节", "使用方法", 1, 1},
		{"第 3 节", "zhnumber 宏包代码实现", 1, 4}, {"第 4 节", "中文数字配置文件", 1, 25}})
}

func TestOutlineOfAMissingDocument(t *testing.T) {
	k, _ := ingested(t)
	_, err := Outline(context.Background(), k, 999)
	if !errors.Is(err, ErrNoDocument) || !strings.Contains(err.Error(), "999") {
		t.Fatalf("err = %v, want ErrNoDocument naming the document", err)
	}
}

// The outline of a long real PDF, timed (PROOFGLASS_SUMMARY_BENCH=1; the 2,415-page manual with
// PROOFGLASS_SUMMARY_BENCH_PDF=pdf/real/R-refman.pdf, whose ingest takes minutes).
func TestOutlineTimeOfALongPDF(t *testing.T) {
	if os.Getenv("PROOFGLASS_SUMMARY_BENCH") == "" {
		t.Skip("set PROOFGLASS_SUMMARY_BENCH=1 to time the outline of a long PDF")
	}
	rel := os.Getenv("PROOFGLASS_SUMMARY_BENCH_PDF")
	if rel == "" {
		rel = "pdf/real/reportlab-userguide.pdf"
	}
	fixture.Path(t, rel)
	start := time.Now()
	k, ids := ingested(t, rel)
	ingestTime := time.Since(start)
	var id int64
	for _, v := range ids {
		id = v
	}
	start = time.Now()
	g, err := Outline(context.Background(), k, id)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("%s: %d pages ingested in %v; outline in %v (%s ms per page): %d sections, %d tables, %d figures, %d key figures, %d cut",
		rel, g.Pages, ingestTime.Round(time.Millisecond), took.Round(time.Millisecond),
		strconv.FormatFloat(float64(took.Microseconds())/1000/float64(max(1, g.Pages)), 'f', 2, 64),
		len(g.Sections), len(g.Tables), len(g.Figures), len(g.KeyFigures), g.Cut)
	for _, s := range g.Sections[:min(len(g.Sections), 40)] {
		t.Logf("  section L%d %s %s — p. %d", s.Level, s.Number, s.Title, s.Page)
	}
	if g.Pages == 0 {
		t.Fatal("no pages")
	}
}

// A statistics-book chapter set in Springer's style: numbered sections to three levels (pages as its PDF outline
// gives them), and figure captions whose label stands apart from the text ("Figure 2.1   Histogram …") taken over
// the running text that names them ("… in Figure 2.4. Again, …" on page 5, "Figure 2.5 highlights …" on page 7).
func TestOutlineOfABookChapter(t *testing.T) {
	k, ids := ingested(t, "pdf/real/hsaur3-Ch_graphical_display.pdf")
	g, err := Outline(context.Background(), k, ids["hsaur3-Ch_graphical_display.pdf"])
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, g, []wantSection{
		{"2.1", "Introduction", 2, 3}, {"2.2", "Initial Data Analysis", 2, 3}, {"2.3", "Analysis Using R", 2, 3},
		{"2.3.1", "Malignant Melanoma", 3, 3}, {"2.3.2", "Chinese Health and Family Life", 3, 9},
		{"2.4", "Summary of Findings", 2, 13}, {"2.5", "Final Comments", 2, 14},
	})
	want := map[string]int{"Figure 2.1": 4, "Figure 2.2": 5, "Figure 2.3": 6, "Figure 2.4": 7, "Figure 2.5": 8,
		"Figure 2.6": 9, "Figure 2.7": 10, "Figure 2.8": 11, "Figure 2.9": 12, "Figure 2.10": 14}
	got := map[string]int{}
	for _, f := range g.Figures {
		got[f.Label] = f.Page
	}
	for label, page := range want {
		if got[label] != page {
			t.Errorf("%s on page %d, want %d", label, got[label], page)
		}
	}
	if len(got) != len(want) {
		t.Errorf("figures %v", got)
	}
	for _, f := range g.Figures {
		if f.Label == "Figure 2.1" && !strings.HasPrefix(f.Caption, "Figure 2.1 Histogram (top) and boxplot (bottom)") {
			t.Errorf("caption %q", f.Caption)
		}
	}
}

// A 134-page software manual: "Chapter N" headings at level 1 with their numbered sections under them, the table of
// contents' lines (each ending in its page number) left out, and its "Figure 2-1:" captions.
func TestOutlineOfAManual(t *testing.T) {
	k, ids := ingested(t, "pdf/real/reportlab-userguide.pdf")
	g, err := Outline(context.Background(), k, ids["reportlab-userguide.pdf"])
	if err != nil {
		t.Fatal(err)
	}
	if g.Title != "ReportLab PDF Library User Guide" {
		t.Errorf("title %q", g.Title)
	}
	checkSections(t, g, []wantSection{
		{"", "Table of contents", 1, 2}, {"Chapter 1", "Introduction", 1, 6}, {"1.1", "About this document", 2, 6}, {"1.10", "Goals of the 3.x release series", 2, 9},
		{"Chapter 2", "Graphics and Text with pdfgen", 1, 11}, {"2.13", "Paths and Lines", 2, 35},
		{"Chapter 7", "Tables and TableStyles", 1, 84}, {"Chapter 11", "Graphics", 1, 101}, {"11.9", "Pie Charts", 2, 117},
		{"Appendix A", "ReportLab Demos", 1, 133},
	})
	for _, s := range g.Sections {
		if s.Page < 6 && s.Title != "Table of contents" {
			t.Errorf("a line of the table of contents read as a section: %+v", s)
		}
	}
	figs := map[string]int{}
	for _, f := range g.Figures {
		figs[f.Label] = f.Page
	}
	if figs["Figure 2-1"] != 13 || figs["Figure 2-33"] != 46 || figs["Figure 6-1"] != 73 {
		t.Errorf("figures %v", figs)
	}
}
