package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"proofglass/backend/fixture"
)

func TestDocumentsFacetsAndWhere(t *testing.T) {
	data := t.TempDir()
	pdf := fixture.Path(t, "pdf/real/blood_loss_report.pdf")
	if out, err := run(t, data, "add", "--no-ocr", "--collection", "c", pdf); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	show := func(args ...string) map[string]string {
		t.Helper()
		out, err := run(t, data, append([]string{"documents", "facets", "1", "--json"}, args...)...)
		if err != nil {
			t.Fatalf("documents facets %v: %v\n%s", args, err, out)
		}
		var v struct {
			Facets map[string]string `json:"facets"`
			User   map[string]bool   `json:"user"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		for k := range v.User {
			v.Facets["user:"+k] = "yes"
		}
		return v.Facets
	}
	if f := show(); f["kind"] != "report" || f["year"] != "2022" || f["date"] != "2022-04-25" {
		t.Errorf("extracted: %v", f)
	}
	if f := show("--set", "org=Kantonsspital Winterthur", "--set", "kind=paper"); f["org"] != "Kantonsspital Winterthur" || f["kind"] != "paper" || f["user:org"] != "yes" {
		t.Errorf("after --set: %v", f)
	}
	// Re-extraction keeps the user's values.
	if f := show("--refresh"); f["org"] != "Kantonsspital Winterthur" || f["kind"] != "paper" || f["year"] != "2022" {
		t.Errorf("after --refresh: %v", f)
	}
	if f := show("--reset", "kind"); f["kind"] != "report" || f["user:kind"] != "" {
		t.Errorf("after --reset kind: %v", f)
	}
	if _, err := run(t, data, "documents", "facets", "1", "--set", "year=soon"); err == nil || !strings.Contains(err.Error(), "want a year") {
		t.Errorf("--set year=soon: %v", err)
	}

	search := func(where string) (string, error) {
		return run(t, data, "search", "blood loss", "--json", "--where", where)
	}
	if out, err := search("org=winterthur,year=2022"); err != nil || !strings.Contains(out, "blood_loss_report.pdf") {
		t.Errorf("search --where org=winterthur,year=2022: %v\n%s", err, out)
	}
	if out, err := search("year=1999"); err != nil || strings.Contains(out, "blood_loss_report.pdf") {
		t.Errorf("search --where year=1999: %v\n%s", err, out)
	}
	if _, err := search("colour=red"); err == nil || !strings.Contains(err.Error(), "not facet=value") {
		t.Errorf("search --where colour=red: %v", err)
	}
	if out, err := run(t, data, "ask", "How much blood?", "--where", "year=1999"); err == nil || !strings.Contains(err.Error(), "no document passes") {
		t.Errorf("ask --where year=1999: %v\n%s", err, out)
	}
	if out, err := run(t, data, "documents", "facets", "--refresh"); err != nil || !strings.Contains(out, "extracted the facets of 0 documents") {
		t.Errorf("documents facets --refresh: %v\n%s", err, out)
	}
}

// TestDocumentsFacetValues: `documents facets --values` lists a collection's kinds, years and organisations with how
// many documents have each, newest year first; --json gives one line per value with its documents.
func TestDocumentsFacetValues(t *testing.T) {
	data := t.TempDir()
	for _, rel := range []string{"pdf/real/blood_loss_report.pdf", "pdf/real/hsaur3-Ch_analysis_of_variance.pdf"} {
		if out, err := run(t, data, "add", "--no-ocr", "--collection", "c", fixture.Path(t, rel)); err != nil {
			t.Fatalf("add: %v\n%s", err, out)
		}
	}
	if out, err := run(t, data, "documents", "facets", "2", "--set", "year=2019", "--set", "org=Chapman & Hall"); err != nil {
		t.Fatalf("set: %v\n%s", err, out)
	}
	out, err := run(t, data, "documents", "facets", "--values", "--collection", "c")
	if err != nil {
		t.Fatalf("--values: %v\n%s", err, out)
	}
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	want := []string{"kind book 1", "kind report 1", "year 2022 1", "year 2019 1", "org Chapman & Hall 1"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", rows, want)
	}
	out, err = run(t, data, "documents", "facets", "--values", "--collection", "c", "--json")
	if err != nil || !strings.Contains(out, `{"facet":"year","value":"2019","documents":[2]}`) {
		t.Errorf("--json: %v\n%s", err, out)
	}
	if _, err := run(t, data, "documents", "facets", "--values", "--collection", "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown collection: %v", err)
	}
	if _, err := run(t, data, "documents", "facets", "1", "--values"); err == nil {
		t.Error("a document with --values was accepted")
	}
}
