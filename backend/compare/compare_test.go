package compare

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/xuri/excelize/v2"

	"proofglass/backend/agent"
	"proofglass/backend/facets"
	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the MuPDF worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	code := m.Run()
	if shared.dir != "" {
		shared.lib.Close()
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// The real documents every test compares, ingested once per test binary into one library.
var testDocs = []string{
	"pdf/real/blood_loss_report.pdf",
	"pdf/real/hsaur3-Ch_analysis_of_variance.pdf",
	"pdf/real/hsaur3-Ch_graphical_display.pdf",
}

var shared struct {
	once sync.Once
	dir  string
	lib  *library.Library
	docs []kb.Document // in testDocs' order
	err  error
}

func openLibrary(t testing.TB) (*library.Library, []kb.Document) {
	t.Helper()
	paths := make([]string, len(testDocs))
	for i, rel := range testDocs {
		paths[i] = fixture.Path(t, rel)
	}
	shared.once.Do(func() {
		ctx := context.Background()
		if shared.dir, shared.err = os.MkdirTemp("", "proofglass-compare-"); shared.err != nil {
			return
		}
		if shared.lib, shared.err = library.Open(ctx, shared.dir); shared.err != nil {
			return
		}
		in := ingest.New(shared.lib.KB, shared.lib.Config, ingest.Options{NoOCR: true, Workers: 1})
		defer in.Close()
		res, err := in.Add(ctx, "docs", paths, nil)
		if err != nil {
			shared.err = err
			return
		}
		byName := map[string]kb.Document{}
		for _, r := range res {
			if r.Error != "" {
				shared.err = errors.New(r.Error)
				return
			}
			byName[r.Document.Name] = r.Document
		}
		for _, p := range paths {
			name := p[strings.LastIndex(p, "/")+1:]
			d, ok := byName[name]
			if !ok {
				shared.err = fmt.Errorf("%s was not ingested", name)
				return
			}
			shared.docs = append(shared.docs, d)
		}
	})
	if shared.err != nil {
		t.Fatalf("library of %v: %v", testDocs, shared.err)
	}
	return shared.lib, shared.docs
}

// searcher is the scripted VRAG model of these tests: the first call of a run searches for the question, the next
// answers it; fail, when set, may fail a call instead.
func searcher(items []string, answer func(item string) string, fail func(item string) error) *modeltest.Script {
	return modeltest.Func(func(req model.Request) (string, error) {
		q := itemOf(items, question(req))
		if q == "" {
			return "", fmt.Errorf("the first user message asks none of %q", items)
		}
		if fail != nil {
			if err := fail(q); err != nil {
				return "", err
			}
		}
		for _, m := range req.Messages {
			if m.Role == model.RoleAssistant {
				return "<think>The page is shown.</think>\n<answer>" + answer(q) + "</answer>", nil
			}
		}
		return "<think>Look for it.</think>\n<search>" + q + "</search>", nil
	})
}

// question is the item a run asks: the longest of items in the first user message's text ("" for none).
func question(req model.Request) string {
	for _, m := range req.Messages {
		if m.Role == model.RoleUser {
			return m.Text()
		}
	}
	return ""
}

// itemOf is the item of items that text asks.
func itemOf(items []string, text string) string {
	best := ""
	for _, it := range items {
		if strings.Contains(text, it) && len(it) > len(best) {
			best = it
		}
	}
	return best
}

func docTargets(docs []kb.Document) []Target {
	out := make([]Target, len(docs))
	for i, d := range docs {
		out[i] = Target{Doc: d.Name}
	}
	return out
}

// Two items of two real documents through the real VRAG loop: one row per item, one column per document, every
// cell answered, citing pages of its own document only, with a grounding mark; every cell's end is streamed once.
func TestCompareTwoDocuments(t *testing.T) {
	ctx := context.Background()
	lib, docs := openLibrary(t)
	docs = docs[:2]
	items := []string{"Blood loss measurement", "Analysis of variance"}
	chat := searcher(items, func(q string) string { return "About " + strings.ToLower(q) }, nil)
	var mu sync.Mutex
	ends := map[[2]int]int{}
	starts := 0
	tab, err := Compare(ctx, lib, Request{Items: items, Targets: []Target{{Doc: docs[0].Name}, {Doc: fmt.Sprint(docs[1].ID)}},
		Mode: "vrag", Parallel: 2, Chat: chat, Progress: func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			if ev.Cell != nil {
				ends[[2]int{ev.Item, ev.Column}]++
			} else if ev.State == StateRunning && ev.Step == "" {
				starts++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Items) != 2 || len(tab.Columns) != 2 || len(tab.Cells) != 2 || len(tab.Cells[0]) != 2 || len(tab.Cells[1]) != 2 {
		t.Fatalf("table shape: %d items, %d columns, cells %v", len(tab.Items), len(tab.Columns), tab.Cells)
	}
	for j, d := range docs {
		if c := tab.Columns[j]; c.Label != d.Name || !slices.Equal(c.Documents, []int64{d.ID}) {
			t.Errorf("column %d is %+v, want %s [%d]", j, c, d.Name, d.ID)
		}
	}
	for i, row := range tab.Cells {
		for j, c := range row {
			if c.State != StateDone || c.Item != i || c.Column != j {
				t.Errorf("cell %d,%d: %+v", i, j, c)
				continue
			}
			if want := "About " + strings.ToLower(items[i]); c.Answer != want {
				t.Errorf("cell %d,%d answer %q, want %q", i, j, c.Answer, want)
			}
			if len(c.Citations) == 0 {
				t.Errorf("cell %d,%d cites nothing", i, j)
			}
			for _, ci := range c.Citations {
				if ci.DocumentID != fmt.Sprint(docs[j].ID) || ci.DocumentName != docs[j].Name || ci.Page < 1 {
					t.Errorf("cell %d,%d (%s) cites %s page %d", i, j, docs[j].Name, ci.DocumentName, ci.Page)
				}
			}
			if c.Mark == "" || c.Mark == MarkUnchecked || c.RunID == 0 || c.Turns != 2 {
				t.Errorf("cell %d,%d: mark %q, run %d, %d turns", i, j, c.Mark, c.RunID, c.Turns)
			}
			if n := ends[[2]int{i, j}]; n != 1 {
				t.Errorf("cell %d,%d: its end streamed %d times", i, j, n)
			}
		}
	}
	if starts != 4 {
		t.Errorf("%d cells streamed their start, want 4", starts)
	}
	if n := len(chat.Requests()); n != 8 {
		t.Errorf("%d model calls, want 8 (2 per cell)", n)
	}
	runs, err := lib.KB.History.Runs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int64]bool{}
	for _, r := range runs {
		stored[r.ID] = true
	}
	for _, row := range tab.Cells {
		for _, c := range row {
			if !stored[c.RunID] {
				t.Errorf("cell %d,%d: run %d is not stored", c.Item, c.Column, c.RunID)
			}
		}
	}
	checkExports(t, tab)
}

// Every export reads back: CSV with encoding/csv, XLSX with excelize, Markdown as a pipe table, JSON as the table.
func checkExports(t *testing.T, tab Table) {
	t.Helper()
	want := append([][]string{Header(tab)}, Rows(tab)...)
	if len(want[0]) != 1+3*len(tab.Columns) {
		t.Fatalf("header %v", want[0])
	}
	var b bytes.Buffer
	if err := Write(&b, tab, "csv"); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("read the CSV back: %v", err)
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("CSV reads back as\n%q\nwant\n%q", got, want)
	}
	b.Reset()
	if err := Write(&b, tab, "xlsx"); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatalf("read the XLSX back: %v", err)
	}
	defer f.Close()
	xrows, err := f.GetRows("Compare")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(xrows, want, slices.Equal) {
		t.Errorf("XLSX reads back as\n%q\nwant\n%q", xrows, want)
	}
	md := Markdown(tab)
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if len(lines) != 2+len(tab.Items) {
		t.Fatalf("Markdown has %d lines, want %d:\n%s", len(lines), 2+len(tab.Items), md)
	}
	for i, l := range lines {
		if n := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); n != 2+len(tab.Columns) {
			t.Errorf("Markdown line %d has %d cell bars, want %d: %s", i, n, 2+len(tab.Columns), l)
		}
	}
	for i := range tab.Items {
		for j := range tab.Columns {
			for _, ci := range tab.Cells[i][j].Citations {
				if !strings.Contains(lines[2+i], mdCell(Source(ci))) {
					t.Errorf("Markdown row %d lacks the source %q", i, Source(ci))
				}
			}
		}
	}
	b.Reset()
	if err := Write(&b, tab, "json"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"cells"`) {
		t.Errorf("JSON: %s", b.String())
	}
	if err := Write(&b, tab, "pdf"); err == nil || !strings.Contains(err.Error(), "pdf") {
		t.Errorf("an unknown format: %v", err)
	}
}

// A cell whose model call fails holds the error; every other cell is answered.
func TestCompareFailingCellDoesNotStopTheOthers(t *testing.T) {
	ctx := context.Background()
	lib, docs := openLibrary(t)
	var failed atomic.Int32
	items := []string{"Blood loss", "Analysis of variance"}
	chat := searcher(items, func(string) string { return "Found." }, func(q string) error {
		if strings.Contains(q, "variance") && failed.CompareAndSwap(0, 1) {
			return errors.New("the model server fell over")
		}
		return nil
	})
	tab, err := Compare(ctx, lib, Request{Items: items, Targets: docTargets(docs[:2]),
		Mode: "vrag", Parallel: 1, Chat: chat})
	if err != nil {
		t.Fatal(err)
	}
	var bad []Cell
	for _, row := range tab.Cells {
		for _, c := range row {
			switch c.State {
			case StateFailed:
				bad = append(bad, c)
			case StateDone:
				if c.Answer != "Found." {
					t.Errorf("cell %d,%d answered %q", c.Item, c.Column, c.Answer)
				}
			default:
				t.Errorf("cell %d,%d is %s", c.Item, c.Column, c.State)
			}
		}
	}
	if len(bad) != 1 || bad[0].Item != 1 || !strings.Contains(bad[0].Error, "the model server fell over") {
		t.Fatalf("failed cells %+v, want the first cell of item 2 with the model's error", bad)
	}
	if s := CellText(bad[0]); !strings.HasPrefix(s, "failed: ") {
		t.Errorf("a failed cell exports as %q", s)
	}
	checkExports(t, tab)
}

// Cancelling a comparison ends the running cell and starts no other: one model call, every cell cancelled.
func TestCompareCancellationStops(t *testing.T) {
	lib, docs := openLibrary(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	var calls atomic.Int32
	chat := modeltest.Func(func(model.Request) (string, error) {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-ctx.Done()
		return "", ctx.Err()
	})
	go func() {
		<-started
		cancel()
	}()
	tab, err := Compare(ctx, lib, Request{Items: []string{"Blood loss", "Variance"}, Targets: docTargets(docs),
		Mode: "vrag", Parallel: 1, Chat: chat})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want cancelled", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d model calls after cancelling, want 1", n)
	}
	if len(tab.Cells) != 2 || len(tab.Cells[0]) != 3 {
		t.Fatalf("table shape %v", tab.Cells)
	}
	for _, row := range tab.Cells {
		for _, c := range row {
			if c.State != StateCancelled {
				t.Errorf("cell %d,%d is %s (%s), want cancelled", c.Item, c.Column, c.State, c.Error)
			}
		}
	}
}

// Check and Resolve refuse what cannot run, naming the item or target, before any model call.
func TestCompareRefusals(t *testing.T) {
	ctx := context.Background()
	lib, docs := openLibrary(t)
	two := docTargets(docs[:2])
	cases := map[string]struct {
		req  Request
		want string
	}{
		"no item":            {Request{Targets: two}, "no item"},
		"an empty item":      {Request{Items: []string{"a", " "}, Targets: two}, "item 2 is empty"},
		"too many items":     {Request{Items: make([]string, MaxItems+1), Targets: two}, "at most"},
		"a long item":        {Request{Items: []string{strings.Repeat("x", MaxItemRunes+1)}, Targets: two}, "item 1 is"},
		"one target":         {Request{Items: []string{"a"}, Targets: two[:1]}, "at least 2"},
		"too many targets":   {Request{Items: []string{"a"}, Targets: make([]Target, MaxTargets+1)}, "at most"},
		"an empty target":    {Request{Items: []string{"a"}, Targets: []Target{two[0], {}}}, "target 2 names neither"},
		"doc and filter":     {Request{Items: []string{"a"}, Targets: []Target{two[0], {Doc: "x", Where: "year=2020"}}}, "both"},
		"unknown document":   {Request{Items: []string{"a"}, Targets: []Target{two[0], {Doc: "nope.pdf"}}}, "nope.pdf"},
		"filter passes none": {Request{Items: []string{"a"}, Targets: []Target{two[0], {Where: "org=nobody at all"}}}, "no document passes"},
		"filter unreadable":  {Request{Items: []string{"a"}, Targets: []Target{two[0], {Where: "year=soon"}}}, "target 2"},
		"parallel too high":  {Request{Items: []string{"a"}, Targets: two, Parallel: MaxParallel + 1}, "parallel"},
		"unknown mode":       {Request{Items: []string{"a"}, Targets: two, Mode: "oracle"}, "unknown mode"},
		"unknown collection": {Request{Items: []string{"a"}, Targets: two, Collection: "elsewhere"}, "elsewhere"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if name == "too many items" {
				for i := range c.req.Items {
					c.req.Items[i] = "q"
				}
			}
			if name == "too many targets" {
				for i := range c.req.Targets {
					c.req.Targets[i] = Target{Doc: "x"}
				}
			}
			chat := modeltest.Always("<answer>x</answer>")
			c.req.Chat = chat
			_, err := Compare(ctx, lib, c.req)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one naming %q", err, c.want)
			}
			if name != "unknown collection" && !library.IsRequestError(err) {
				t.Errorf("%v is not a request error", err)
			}
			if n := len(chat.Requests()); n != 0 {
				t.Errorf("a refused comparison called the model %d times", n)
			}
		})
	}
}

func TestMark(t *testing.T) {
	claims := func(st ...string) agent.GroundingInfo {
		var g agent.GroundingInfo
		for _, s := range st {
			g.Claims = append(g.Claims, agent.GroundedClaim{Status: s})
		}
		return g
	}
	cases := map[string]struct {
		g    agent.GroundingInfo
		want string
	}{
		"nothing to check": {claims(), MarkNoClaims},
		"all cited":        {claims(agent.GroundRegion, agent.GroundCitedPage), MarkGrounded},
		"some elsewhere":   {claims(agent.GroundCitedPage, agent.GroundElsewhere), MarkPartial},
		"none cited":       {claims(agent.GroundNotFound, agent.GroundElsewhere), MarkUngrounded},
		"a mismatch wins":  {claims(agent.GroundCitedPage, agent.GroundMismatch), MarkMismatch},
	}
	for name, c := range cases {
		if got := Mark(c.g); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}

// Exported text cannot become a formula or break a Markdown table, whatever the answer says.
func TestExportsDefuseAnswers(t *testing.T) {
	r := [4]float64{0.1, 0.2, 0.5, 0.6}
	tab := Table{Items: []string{"=1+1", "a | b"}, Columns: []Column{{Label: "x.pdf"}, {Label: "y.pdf"}}, Cells: [][]Cell{
		{{State: StateDone, Answer: "=HYPERLINK(\"http://evil\")", Citations: []agent.Citation{{DocumentName: "x.pdf", Page: 2, Region: &r}}, Mark: MarkGrounded},
			{State: StateFailed, Error: "boom", Mark: MarkUnchecked}},
		{{State: StateDone, Answer: "line one\nline | two <script>", Mark: MarkNoClaims}, {State: StateCancelled, Mark: MarkUnchecked}},
	}}
	var b bytes.Buffer
	if err := WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if rows[1][0] != "'=1+1" || rows[1][1] != `'=HYPERLINK("http://evil")` {
		t.Errorf("formulas kept: %q", rows[1])
	}
	if rows[1][2] != "x.pdf p. 2 (region 10–50 % × 20–60 %)" {
		t.Errorf("source %q", rows[1][2])
	}
	md := Markdown(tab)
	if strings.Contains(md, "<script>") || strings.Count(md, "\n") != 4 {
		t.Errorf("Markdown not escaped:\n%s", md)
	}
	b.Reset()
	if err := WriteXLSX(&b, tab); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fm, _ := f.GetCellFormula("Compare", "B2"); fm != "" {
		t.Errorf("XLSX cell B2 is the formula %q", fm)
	}
}

// Filters as targets: each column is the documents its filter passes, and each cell cites only those.
func TestCompareFilters(t *testing.T) {
	ctx := context.Background()
	lib, docs := openLibrary(t)
	orgs := []string{"Alpha Clinic", "Beta Statistics", "Beta Statistics"}
	for i, d := range docs {
		if err := facets.SetUser(ctx, lib.KB, d.ID, "org", orgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	items := []string{"blood loss", "variance"}
	chat := searcher(items, func(q string) string { return "On " + q + "." }, nil)
	tab, err := Compare(ctx, lib, Request{Items: items, Targets: []Target{{Where: "org=Alpha Clinic"}, {Where: "org=Beta Statistics"}},
		Mode: "vrag", Chat: chat})
	if err != nil {
		t.Fatal(err)
	}
	wantDocs := [][]int64{{docs[0].ID}, {docs[1].ID, docs[2].ID}}
	for j, c := range tab.Columns {
		if !slices.Equal(c.Documents, wantDocs[j]) || c.Label != c.Where {
			t.Errorf("column %d: %+v, want documents %v", j, c, wantDocs[j])
		}
	}
	cited := 0
	for _, row := range tab.Cells {
		for _, c := range row {
			if c.State != StateDone {
				t.Errorf("cell %d,%d: %s %s", c.Item, c.Column, c.State, c.Error)
			}
			for _, ci := range c.Citations {
				cited++
				if !slices.Contains(wantDocs[c.Column], mustID(t, ci.DocumentID)) {
					t.Errorf("cell %d,%d (%s) cites %s", c.Item, c.Column, tab.Columns[c.Column].Label, ci.DocumentName)
				}
			}
		}
	}
	if cited == 0 {
		t.Error("no cell cites anything")
	}
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	var id int64
	if _, err := fmt.Sscan(s, &id); err != nil {
		t.Fatalf("document id %q: %v", s, err)
	}
	return id
}
