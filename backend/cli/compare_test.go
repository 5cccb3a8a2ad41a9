package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"proofglass/backend/compare"
	"proofglass/backend/model/modeltest"
)

// compareServer is a scripted VRAG model over HTTP: a run's first call searches for the item it asks, the next
// answers "Answer to ITEM."; an item containing "broken" fails.
func compareServer(items []string) *modeltest.Server {
	return &modeltest.Server{Chunk: 9, Usage: true, Reply: func(_ int, body []byte) (string, error) {
		item := ""
		for _, it := range items {
			if bytes.Contains(body, []byte(it)) && len(it) > len(item) {
				item = it
			}
		}
		if strings.Contains(item, "broken") {
			return "", errBroken
		}
		if bytes.Contains(body, []byte(`"role":"assistant"`)) {
			return "<think>Shown.</think>\n<answer>Answer to " + item + ".</answer>", nil
		}
		return "<think>Look.</think>\n<search>" + item + "</search>", nil
	}}
}

var errBroken = errors.New("the model cannot answer a broken item")

func TestCompareCommand(t *testing.T) {
	data, _ := scopeKB(t)
	items := []string{"blood loss", "analysis of variance", "a broken item"}
	srv := compareServer(items)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	openAIEnv(t, hs.URL)
	ctx := context.Background()
	const a, b = "blood_loss_report.pdf", "hsaur3-Ch_analysis_of_variance.pdf"
	args := []string{"compare", "--item", items[0], "--item", items[1], "--item", items[2], "--doc", a, "--doc", "2",
		"--mode", "vrag", "--provider", "openai", "--model", "m", "--parallel", "2", "-q"}
	args = slices.Clip(args)

	out, err := cli(ctx, data, append(args, "--format", "csv")...)
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, out)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not read back: %v\n%s", err, out)
	}
	if len(rows) != 4 || len(rows[0]) != 7 || rows[0][1] != a || rows[0][4] != b {
		t.Fatalf("CSV shape %d×%d, header %q", len(rows), len(rows[0]), rows[0])
	}
	for i, it := range items[:2] {
		for j, doc := range []string{a, b} {
			if got := rows[i+1][1+3*j]; got != "Answer to "+it+"." {
				t.Errorf("%s × %s: %q", it, doc, got)
			}
			src := rows[i+1][2+3*j]
			if src == "" {
				if i == j { // each item's words are in its own document; the other may have no page for them
					t.Errorf("%s × %s cites nothing", it, doc)
				}
				continue
			}
			for _, s := range strings.Split(src, "; ") {
				if !strings.HasPrefix(s, doc+" p. ") {
					t.Errorf("%s × %s cites %q", it, doc, s)
				}
			}
		}
	}
	for j := range 2 {
		if got := rows[3][1+3*j]; !strings.HasPrefix(got, "failed: ") || !strings.Contains(got, "400") {
			t.Errorf("the broken item's cell %d: %q", j, got)
		}
	}

	xlsx := filepath.Join(t.TempDir(), "cmp.xlsx")
	if out, err := cli(ctx, data, append(args, "--format", "xlsx", "--out", xlsx)...); err != nil {
		t.Fatalf("compare xlsx: %v\n%s", err, out)
	}
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	xr, err := f.GetRows("Compare")
	if err != nil || len(xr) != 4 || xr[1][1] != "Answer to blood loss." || xr[2][4] != "Answer to analysis of variance." {
		t.Errorf("XLSX rows %q %v", xr, err)
	}

	out, err = cli(ctx, data, append(args, "--format", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	var tab compare.Table
	if err := json.Unmarshal([]byte(out), &tab); err != nil || len(tab.Cells) != 3 || tab.Columns[1].Label != b {
		t.Fatalf("JSON %v: %s", err, out)
	}

	out, err = cli(ctx, data, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "1. blood loss") || !strings.Contains(out, "sources: "+b+" p. ") {
		t.Errorf("table:\n%s", out)
	}
}

func TestCompareCommandRefusals(t *testing.T) {
	data, _ := scopeKB(t)
	ctx := context.Background()
	cases := map[string]struct {
		args []string
		want string
	}{
		"no item":          {[]string{"--doc", "1", "--doc", "2"}, "no item"},
		"one target":       {[]string{"--item", "x", "--doc", "1"}, "at least 2"},
		"unknown document": {[]string{"--item", "x", "--doc", "1", "--doc", "nope.pdf"}, "nope.pdf"},
		"bad filter":       {[]string{"--item", "x", "--doc", "1", "--where", "year=soon"}, "year"},
		"xlsx to stdout":   {[]string{"--item", "x", "--doc", "1", "--doc", "2", "--format", "xlsx"}, "--out"},
		"bad format":       {[]string{"--item", "x", "--doc", "1", "--doc", "2", "--format", "pdf"}, "--format"},
		"parallel":         {[]string{"--item", "x", "--doc", "1", "--doc", "2", "--parallel", "99"}, "parallel"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := cli(ctx, data, append([]string{"compare"}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want one naming %q", err, c.want)
			}
		})
	}
}

// --where targets: each filter is a column of the documents it passes, and its cells cite only those.
func TestCompareCommandFilters(t *testing.T) {
	data, _ := scopeKB(t)
	items := []string{"blood loss", "analysis of variance"}
	hs := httptest.NewServer(compareServer(items))
	defer hs.Close()
	openAIEnv(t, hs.URL)
	ctx := context.Background()
	for doc, org := range map[string]string{"1": "Alpha Clinic", "2": "Beta Statistics"} {
		if out, err := cli(ctx, data, "documents", "facets", doc, "--set", "org="+org); err != nil {
			t.Fatalf("set org of %s: %v\n%s", doc, err, out)
		}
	}
	out, err := cli(ctx, data, "compare", "--item", items[0], "--item", items[1], "--where", "org=Alpha Clinic",
		"--where", "org=Beta Statistics", "--mode", "vrag", "--provider", "openai", "--model", "m", "--format", "json", "-q")
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, out)
	}
	var tab compare.Table
	if err := json.Unmarshal([]byte(out), &tab); err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{1}, {2}}
	cited := 0
	for j, c := range tab.Columns {
		if !slices.Equal(c.Documents, want[j]) || c.Where == "" || c.Label != c.Where {
			t.Errorf("column %d: %+v, want documents %v", j, c, want[j])
		}
		for i := range tab.Items {
			cell := tab.Cells[i][j]
			if cell.State != compare.StateDone {
				t.Errorf("cell %d,%d: %s %s", i, j, cell.State, cell.Error)
			}
			for _, ci := range cell.Citations {
				cited++
				if ci.DocumentID != fmt.Sprint(want[j][0]) {
					t.Errorf("cell %d,%d (%s) cites %s", i, j, c.Label, ci.DocumentName)
				}
			}
		}
	}
	if cited == 0 {
		t.Error("no cell cites anything")
	}
}
