package groundeval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// checkRates fails when the rates miss the goals given, and prints the table.
func checkRates(t *testing.T, res []Result, trueGreen, falseAlarm, caught, alteredGreen, named float64) {
	t.Helper()
	var b strings.Builder
	if err := Print(&b, res); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", b.String())
	all, _ := Tally(res, func(Result) string { return "" })
	if all.True == 0 || all.Altered == 0 {
		t.Fatalf("%d true and %d altered cases, want both", all.True, all.Altered)
	}
	for _, g := range []struct {
		name      string
		got, goal float64
		atLeast   bool
	}{
		{"true green", all.TrueGreenRate(), trueGreen, true},
		{"false alarm", all.FalseAlarmRate(), falseAlarm, false},
		{"altered caught", all.CaughtRate(), caught, true},
		{"altered green", all.AlteredGreenRate(), alteredGreen, false},
		{"true value named", all.NamedRightRate(), named, true},
	} {
		if g.atLeast && g.got < g.goal || !g.atLeast && g.got > g.goal {
			t.Errorf("%s %.1f %%, goal %s %.1f %%", g.name, 100*g.got, map[bool]string{true: "≥", false: "≤"}[g.atLeast], 100*g.goal)
		}
	}
}

// The generated filings, surveys and Chinese reports meet the goals.
func TestGeneratedDocuments(t *testing.T) {
	res := runGenerated(t, 1)
	// Every alteration of the generator is there, and each set.
	_, by := Tally(res, func(r Result) string { return r.Alter })
	for _, a := range []string{AlterDigit, AlterSwap, AlterScale, AlterDate, AlterColumn, AlterRow, AlterPage} {
		if by[a] == nil || by[a].Altered == 0 {
			t.Errorf("no %q alteration among the cases", a)
		}
	}
}

// Another seed draws other documents: the rates do not hang on one draw.
func TestGeneratedDocumentsOtherSeed(t *testing.T) {
	runGenerated(t, 7)
}

// runGenerated checks the generated documents of seed and holds their rates to the goals.
func runGenerated(t *testing.T, seed uint64) []Result {
	t.Helper()
	docs, cases := Synthetic(seed)
	res, err := Run(context.Background(), docs, cases)
	if err != nil {
		t.Fatal(err)
	}
	checkRates(t, res, 0.95, 0.01, 0.90, 0.01, 0.90)
	return res
}

// Real pages of the shared test data, ingested as Proofglass ingests them: the check never calls an altered figure
// green nor a true one a mismatch more than rarely. (Catching every alteration needs context the answers built
// from bare table rows do not always give; the rates are printed.)
func TestRealDocuments(t *testing.T) {
	var paths []string
	for _, rel := range []string{"pdf/real/blood_loss_report.pdf", "pdf/real/hsaur3-Ch_analysis_of_variance.pdf",
		"pdf/real/hsaur3-Ch_logistic_regression_glm.pdf", "pdf/cjk/zhnumber.pdf"} {
		paths = append(paths, fixture.Path(t, rel))
	}
	docs, err := Ingest(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	cases := FromDocs(docs, 1, 30)
	res, err := Run(context.Background(), docs, cases)
	if err != nil {
		t.Fatal(err)
	}
	checkRates(t, res, 0.90, 0.02, 0.60, 0.03, 0.70)
}

// A damaged file is an error naming it.
func TestIngestNamesTheFileItCannotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "truncated.pdf")
	if err := os.WriteFile(path, []byte("%PDF-1.4\n1 0 obj\n<<"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Ingest(context.Background(), []string{path})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want one naming %s", err, path)
	}
}
