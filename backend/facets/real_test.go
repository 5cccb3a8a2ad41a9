package facets_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"proofglass/backend/facets"
	"proofglass/backend/fixture"
	"proofglass/backend/pdf"
)

func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// sourceOfFile reads a PDF as ingest stores it: its info dictionary and the text of its leading pages.
func sourceOfFile(t *testing.T, c *pdf.Client, path string) facets.Source {
	t.Helper()
	ctx := context.Background()
	d, err := c.Open(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	src := facets.Source{FileName: filepath.Base(path), Info: d.Info.Metadata}
	for i := 0; i < min(d.Pages(), 30); i++ {
		pg, err := d.Page(ctx, i, pdf.PageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		src.Pages = append(src.Pages, pg.Text)
	}
	return src
}

func pdfClient(t *testing.T) *pdf.Client {
	c := pdf.NewClient(pdf.Options{})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRealDocuments extracts the facets of real PDFs of the shared test data and checks what is really on them:
// the title their metadata or cover states, the organisation named there, the year and the kind.
func TestRealDocuments(t *testing.T) {
	c := pdfClient(t)
	dir := fixture.Dir(t)
	cases := []struct {
		file string
		want facets.Facets
	}{
		{"pdf/real/reportlab-userguide.pdf", facets.Facets{Title: "ReportLab PDF Generation User Guide", Org: "ReportLab Team",
			Kind: "manual", Year: "2024", Date: "2024-10-12"}},
		{"pdf/real/hsaur3-Ch_analysis_of_variance.pdf", facets.Facets{Title: "A Handbook of Statistical Analyses Using R (3rd Edition)",
			Kind: "book", Year: "2022", Date: "2022-04-25"}},
		{"pdf/real/blood_loss_report.pdf", facets.Facets{
			Title: "Statistical Supplementary Material: The Impact of Prepartum Factor XIII Activity on Postpartum Blood",
			Kind:  "report", Year: "2022", Date: "2022-04-25"}},
		{"pdf/cjk/zhnumber.pdf", facets.Facets{Title: "zhnumber 宏包", Year: "2022", Date: "2022-07-14"}},
		{"../eval/dev/docs/2023.acl-long.386.pdf", facets.Facets{Title: "Fact-Checking Complex Claims with Program-Guided Reasoning",
			Org: "Association for Computational Linguistics", Kind: "paper", Year: "2023", Date: "2023-07-09"}},
		{"../eval/dev/docs/2023.findings-emnlp.248.pdf", facets.Facets{
			Title: "LOGIC-LM: Empowering Large Language Models with Symbolic Solvers for Faithful Logical Reasoning",
			Org:   "Association for Computational Linguistics", Kind: "paper", Year: "2023", Date: "2023-12-06"}},
		{"../eval/dev/docs/a4f3ced0696009fec3179f493e4f28c4.pdf", facets.Facets{Title: "In the United States Court of Appeals",
			Org: "United States Court of Appeals", Kind: "court opinion", Year: "2022", Date: "2022-01-05"}},
		{"../eval/dev/docs/mmdetection-readthedocs-io-en-v2.18.0.pdf", facets.Facets{Title: "MMDetection",
			Org: "MMDetection Authors", Kind: "manual", Year: "2021", Date: "2021-10-28"}},
		{"../eval/dev/docs/efd88e41c5f2606c57929cac6c1c0605.pdf", facets.Facets{Title: "HUMAN HEALTH",
			Org: "U.S. Global Change Research Program", Year: "2023", Date: "2023-01-06"}},
		{"../eval/dev/docs/fd76bbefe469561966e5387aa709c482.pdf", facets.Facets{Title: "Transactions",
			Org: "North of England Institute of Mining Engineers"}},
		// The regulator's name is broken by a line end and a running footer.
		{"../eval/dev/docs/379f44022bb27aa53efd5d322c7b57bf.pdf", facets.Facets{
			Title: "The Limes Residential Home NewApproachComprehensive Report (AdultSocialCare Location Apr 2015)",
			Org:   "Care Quality Commission", Kind: "report", Year: "2015", Date: "2015-07-10"}},
	}
	for _, cs := range cases {
		t.Run(filepath.Base(cs.file), func(t *testing.T) {
			path := filepath.Join(dir, cs.file)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s: %v", cs.file, err)
			}
			if got := facets.Extract(sourceOfFile(t, c, path)); got != cs.want {
				t.Errorf("\n got %+v\nwant %+v", got, cs.want)
			}
		})
	}
}
