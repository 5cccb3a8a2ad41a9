package groundeval

import (
	"context"
	"os"
	"testing"

	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the pdf worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

func TestSyntheticRates(t *testing.T) {
	docs, cases := Synthetic(1)
	res, err := Run(context.Background(), docs, cases)
	if err != nil {
		t.Fatal(err)
	}
	Print(os.Stdout, res)
	for _, r := range res {
		if (r.Alter == AlterNone && !r.Green()) || (r.Alter != AlterNone && !r.Caught()) || (r.Status == "mismatch" && !r.NamedRight()) {
			if os.Getenv("SHOW") != "" {
				t.Logf("%s %s %s: %q claim %q → %s (%s) found %q truth %q", r.Set, r.Form, r.Alter, r.Answer, r.Claim, r.Status, r.Note, r.Found, r.Truth)
			}
		}
	}
}

func TestRealRates(t *testing.T) {
	var paths []string
	for _, p := range []string{"blood_loss_report.pdf", "hsaur3-Ch_analysis_of_variance.pdf"} {
		paths = append(paths, "/work/shared/testdata/pdf/real/"+p)
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
	Print(os.Stdout, res)
	for _, r := range res {
		if (r.Alter == AlterNone && !r.Green()) || (r.Alter != AlterNone && !r.Caught()) || (r.Status == "mismatch" && !r.NamedRight()) {
			if os.Getenv("SHOW") != "" {
				t.Logf("%s %s %s: %q claim %q → %s (%s) found %q truth %q", r.Set, r.Form, r.Alter, r.Answer, r.Claim, r.Status, r.Note, r.Found, r.Truth)
			}
		}
	}
}
