package library

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/ingest"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// TestEveryFormatIsCitedAndGrounded asks of a file of each format Proofglass lays out itself (Office, OpenDocument,
// e-books, XPS, web, text, Markdown, tables, e-mail), through the real agent loop with a scripted model: the
// search finds the file's page by its marker word, the answer cites it, and the figure the answer quotes from it
// is found there by the grounding check (issue 39); an altered figure is not.
func TestEveryFormatIsCitedAndGrounded(t *testing.T) {
	ctx := context.Background()
	lib, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	dir := filepath.Join("..", "ingest", "testdata", "formats")
	// claim says the figure in its context on the page, %s standing for it.
	cases := []struct{ file, marker, claim, figure, altered string }{
		{"report.docx", "wombatdocx", "", "", ""},
		{"workbook.xlsx", "wombatxlsx", "", "", ""},
		{"prices.csv", "wombatcsv", "Dried wombatcsv costs %s.", "3.50", "3.75"},
		{"stations.tsv", "wombattsv", "", "", ""},
		{"guide.md", "wombatmd", "The default port is %s.", "8080", "8081"},
		{"summary.xps", "wombatxps", "The wombatxps depot shipped %s crates.", "1,240", "1,420"},
		{"message.eml", "wombateml", "Revenue rose %s in Q3.", "4.2%", "4.7%"},
		{"story.fb2", "wombatfb", "", "", ""},
		{"book.epub", "wombatepub", "", "", ""},
		{"notes.odt", "wombatodt", "", "", ""},
		{"stock.ods", "wombatods", "The wombatods count is %s.", "14", "41"},
		{"page.html", "wombathtml", "", "", ""},
	}
	var paths []string
	for _, c := range cases {
		paths = append(paths, filepath.Join(dir, c.file))
	}
	in := ingest.New(lib.KB, lib.Config, ingest.Options{NoOCR: true, Workers: 2})
	res, err := in.Add(ctx, "formats", paths, nil)
	in.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Error != "" {
			t.Fatalf("%s: %s", r.Path, r.Error)
		}
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			for _, figure := range []string{c.figure, c.altered} {
				answer := "The page names " + c.marker + "."
				if figure != "" {
					answer = fmt.Sprintf(c.claim, figure)
				}
				n := 0
				chat := modeltest.Func(func(model.Request) (string, error) {
					n++
					if n == 1 {
						return "<search>" + c.marker + "</search>", nil
					}
					return "<answer>" + answer + "</answer>", nil
				})
				var results *agent.ResultsInfo
				var g *agent.GroundingInfo
				turn, err := lib.Ask(ctx, AskRequest{Question: "What does " + c.file + " say?", RunOnly: true, Chat: chat,
					Scope: Scope{Collection: "formats"}, Options: RunOptions{Mode: "vrag"}}, func(ev agent.Event) {
					switch ev.Kind {
					case agent.KindResults:
						if results == nil {
							results = ev.Results
						}
					case agent.KindGrounding:
						g = ev.Grounding
					}
				})
				if err != nil || turn.Result.Answer == nil {
					t.Fatalf("ask: %v %+v", err, turn.Result)
				}
				if results == nil || len(results.Hits) == 0 || results.Hits[0].DocumentName != c.file {
					t.Fatalf("the search did not show %s first: %+v", c.file, results)
				}
				if len(turn.Result.Answer.Citations) == 0 || turn.Result.Answer.Citations[0].DocumentName != c.file {
					t.Fatalf("the answer cites %+v, want %s", turn.Result.Answer.Citations, c.file)
				}
				if figure == "" {
					return
				}
				if g == nil {
					t.Fatal("no grounding event")
				}
				var claim *agent.GroundedClaim
				for i := range g.Claims {
					if g.Claims[i].Text == figure {
						claim = &g.Claims[i]
					}
				}
				grounded := claim != nil && (claim.Status == agent.GroundRegion || claim.Status == agent.GroundCitedPage)
				if want := figure == c.figure; grounded != want {
					t.Errorf("figure %s (true: %v): %+v in %+v (%s; answer %q)", figure, want, claim, g.Claims, g.Summary, turn.Result.Answer.Text)
				}
			}
		})
	}
}
