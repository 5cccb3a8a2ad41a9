package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/kbagent"
	"proofglass/backend/model/modeltest"
)

// scopeKB holds two real PDFs in one collection; the word returned occurs only in the first, which is left out of
// the scope, so a search for it can only stay in scope by finding nothing there or other pages of the second.
func scopeKB(t *testing.T) (data, word string) {
	t.Helper()
	data = t.TempDir()
	texts, _ := askKB(t, data, "pdf/real/blood_loss_report.pdf")
	askKB(t, data, "pdf/real/hsaur3-Ch_analysis_of_variance.pdf")
	word, _ = uniqueWord(t, texts)
	return data, word
}

func TestSearchDocScope(t *testing.T) {
	data, word := scopeKB(t)
	ctx := context.Background()
	const inScope = "hsaur3-Ch_analysis_of_variance.pdf"
	cases := map[string]struct {
		args []string
		want string // the only document hits may come from; "" = the unscoped search must reach the other one
	}{
		"unscoped":       {[]string{"search", "--json", word + " variance"}, ""},
		"by-name":        {[]string{"search", "--json", "--doc", inScope, word + " variance"}, inScope},
		"by-id":          {[]string{"search", "--json", "--doc", "2", word + " variance"}, inScope},
		"page-and-label": {[]string{"search", "--json", "--doc", inScope, "What does Table 1 on page 1 show about " + word + "?"}, inScope},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := cli(ctx, data, c.args...)
			if err != nil {
				t.Fatalf("%v: %v", c.args, err)
			}
			docs := map[string]int{}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var l searchLine
				if err := json.Unmarshal([]byte(line), &l); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				docs[l.Doc]++
			}
			if c.want == "" {
				if docs["blood_loss_report.pdf"] == 0 {
					t.Fatalf("unscoped search for %q missed the page that holds it: %v", word, docs)
				}
				return
			}
			if len(docs) != 1 || docs[c.want] == 0 {
				t.Errorf("scoped to %s, hits came from %v", c.want, docs)
			}
		})
	}
	for _, bad := range []string{"nope.pdf", "99", "0"} {
		if _, err := cli(ctx, data, "search", "--doc", bad, "variance"); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("--doc %s: err %v, want not found", bad, err)
		}
	}
}

func TestAskDocScopeKeepsAgentSearchesInside(t *testing.T) {
	data, word := scopeKB(t)
	srv := &modeltest.Server{Chunk: 9, Usage: true, Turns: []string{
		"<think>Look for it.</think>\n<search>" + word + "</search>",
		"<think>Again, more broadly.</think>\n<search>" + word + " blood loss variance</search>",
		"<think>Enough.</think>\n<answer>Not in this document.</answer>",
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	openAIEnv(t, hs.URL)
	ctx := context.Background()
	if out, err := cli(ctx, data, "ask", "Where is "+word+" discussed?", "--mode", "vrag", "--provider", "openai",
		"--model", "m", "--doc", "hsaur3-Ch_analysis_of_variance.pdf", "--json"); err != nil {
		t.Fatalf("ask: %v\n%s", err, out)
	}
	k := openData(t, data)
	defer k.Close()
	runs, err := k.History.Runs(ctx, 0)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v %v", runs, err)
	}
	evs, err := kbagent.Events(ctx, k, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	searches, hits := 0, 0
	for _, ev := range evs {
		switch ev.Kind {
		case agent.KindRunStarted:
			if len(ev.Run.Documents) != 1 || ev.Run.Documents[0] != 2 {
				t.Errorf("run_started records scope %v, want [2]", ev.Run.Documents)
			}
		case agent.KindResults:
			searches++
			for _, h := range ev.Results.Hits {
				hits++
				if h.DocumentID != "2" {
					t.Errorf("search %q returned %s page %d, outside the scope", ev.Results.Query, h.DocumentName, h.Page)
				}
			}
		}
	}
	if searches != 2 || hits == 0 {
		t.Errorf("%d searches with %d hits; want 2 searches that found pages of the scoped document", searches, hits)
	}
}
