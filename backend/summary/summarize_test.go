package summary

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"proofglass/backend/agent"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

const scriptedReply = `SUMMARY:
The report studies whether prepartum factor XIII activity predicts postpartum blood loss [p. 1].
A PPH-rate of 4.9% was assumed for the sample size [p. 1].
KEY FIGURES:
- 83 IU/dL — F. XIII activity prior to delivery in a previous study [p. 1]
- 1500 patients — the enrollment target [p. 3]
- 4.8% — the PPH-rate supposed in the patients [p. 1]
`

func claimOf(t *testing.T, s Summary, text string) Claim {
	t.Helper()
	for _, list := range [][]Statement{s.Sentences, s.KeyFigures} {
		for _, st := range list {
			for _, c := range st.Claims {
				if c.Text == text {
					return c
				}
			}
		}
	}
	t.Fatalf("no claim %q in %+v", text, s)
	return Claim{}
}

// A scripted model's summary of a real report: the true figures are found on the pages cited, the altered one
// (4.8% where page 1 says 4.9%) is a mismatch; the request is sized to a 2,048-token window; asking again is the
// stored summary, with no model call.
func TestSummarizeGroundsEachFigure(t *testing.T) {
	k, ids := ingested(t, "pdf/real/blood_loss_report.pdf")
	id := ids["blood_loss_report.pdf"]
	chat := modeltest.Always(scriptedReply)
	ctx := context.Background()
	s, err := Summarize(ctx, k, chat, id, Options{Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sentences) != 2 || len(s.KeyFigures) != 3 || s.Cached {
		t.Fatalf("sentences %+v, key figures %+v, cached %v", s.Sentences, s.KeyFigures, s.Cached)
	}
	if got := s.KeyFigures[1].Pages; len(got) != 1 || got[0] != 3 {
		t.Errorf("pages of the second key figure %v, want [3]", got)
	}
	if c := claimOf(t, s, "4.9%"); c.Status != agent.GroundCitedPage || c.Page != 1 || c.Region == nil {
		t.Errorf("4.9%%: %+v, want cited_page on page 1 with a region", c)
	}
	if c := claimOf(t, s, "83"); c.Status != agent.GroundCitedPage {
		t.Errorf("83: %+v", c)
	}
	if c := claimOf(t, s, "1500"); c.Status != agent.GroundCitedPage || c.Page != 3 {
		t.Errorf("1500: %+v, want cited_page on page 3", c)
	}
	if c := claimOf(t, s, "4.8%"); c.Status != agent.GroundMismatch || c.Found == nil || !strings.Contains(c.Found.Text, "4.9") {
		t.Errorf("4.8%%: %+v, want a mismatch showing page 1's 4.9%%", c)
	}
	if s.Mismatched != 1 || s.Grounded < 3 || len(s.Outline.Sections) == 0 {
		t.Errorf("counts: %d figures, %d grounded, %d mismatched; %d sections", s.Figures, s.Grounded, s.Mismatched, len(s.Outline.Sections))
	}
	reqs := chat.Take()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Options.NumCtx != 2048 || r.Options.MaxTokens != 400 || r.Model != "scripted" {
		t.Errorf("options %+v", r.Options)
	}
	user := r.Messages[1].Text()
	if n := estimateTokens(r.Messages[0].Text()+user) + r.Options.MaxTokens; n > 2048 {
		t.Errorf("the request takes about %d tokens with its reply, over the 2,048 window", n)
	}
	if !strings.Contains(user, "[p. 1]") || !strings.Contains(user, "Maternal Characteristics (p. 1)") {
		t.Errorf("prompt lacks the first page or the sections:\n%s", user)
	}
	again, err := Summarize(ctx, k, chat, id, Options{Model: "scripted"})
	if err != nil || !again.Cached || len(chat.Take()) != 0 || len(again.KeyFigures) != 3 || len(again.Outline.Sections) == 0 {
		t.Fatalf("asking again: cached %v, err %v", again.Cached, err)
	}
	if c := claimOf(t, again, "4.8%"); c.Status != agent.GroundMismatch {
		t.Errorf("stored 4.8%%: %+v", c)
	}
	if _, err := Summarize(ctx, k, chat, id, Options{Model: "scripted", Refresh: true}); err != nil || len(chat.Take()) != 1 {
		t.Fatalf("refresh: %v", err)
	}
	st, ok, err := Stored(ctx, k, id)
	if err != nil || !ok || st.Model != "scripted" {
		t.Fatalf("stored: %v %v %+v", ok, err, st)
	}
}

// blocked is a chat model that never answers: it waits for its context to end.
type blocked struct{}

func (blocked) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A model that fails, one that does not answer in time, one that answers nothing useful and none at all: each a
// clear error, and the outline still comes back.
func TestSummarizeFailuresKeepTheOutline(t *testing.T) {
	k, ids := ingested(t, "pdf/real/blood_loss_report.pdf")
	id := ids["blood_loss_report.pdf"]
	ctx := context.Background()
	for _, c := range []struct {
		name string
		chat model.Chat
		opts Options
		want string
	}{
		{"fails", modeltest.Func(func(model.Request) (string, error) { return "", errors.New("connection refused") }),
			Options{Model: "m"}, "connection refused"},
		{"times out", blocked{}, Options{Model: "m", Timeout: 20 * time.Millisecond}, "did not answer within 20ms"},
		{"empty", modeltest.Always("  \n"), Options{Model: "m"}, "holds no summary"},
		{"no model", nil, Options{}, "no chat model configured"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Summarize(ctx, k, c.chat, id, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "blood_loss_report.pdf") {
				t.Fatalf("err = %v, want one naming the document and %q", err, c.want)
			}
			if len(s.Outline.Sections) < 5 || len(s.Outline.Figures) != 7 {
				t.Errorf("outline not returned with the error: %+v", s.Outline)
			}
		})
	}
	if _, ok, _ := Stored(ctx, k, id); ok {
		t.Error("a failed summary was stored")
	}
}

func TestParseReplyWithoutHeaders(t *testing.T) {
	s, f := parseReply("The plan grew revenue by 12% (p. 2).\n- 12% — revenue growth [p. 2, 3]\n本报告介绍了收入情况【第 4 页】。")
	if len(s) != 2 || len(f) != 1 || f[0].Pages[0] != 2 || f[0].Pages[1] != 3 || s[1].Pages[0] != 4 {
		t.Fatalf("sentences %+v, figures %+v", s, f)
	}
	if strings.Contains(s[0].Text, "p. 2") {
		t.Errorf("citation left in the text: %q", s[0].Text)
	}
}

// A server whose tokenizer cuts text twice as finely as the estimate counts more prompt tokens than fit the window
// with the reply: the page text is cut further and asked again until the server's own count fits.
func TestSummarizeShrinksWhenTheServerCountsMore(t *testing.T) {
	k, ids := ingested(t, "pdf/real/blood_loss_report.pdf")
	count := func(req model.Request) int {
		n := 0
		for _, m := range req.Messages {
			n += 2 * estimateTokens(m.Text())
		}
		return n
	}
	chat := &modeltest.Script{Replies: modeltest.Turns(scriptedReply), Repeat: true, Prompt: count}
	s, err := Summarize(context.Background(), k, chat, ids["blood_loss_report.pdf"], Options{Model: "fine"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := chat.Take()
	if len(reqs) < 2 || s.Shrunk != len(reqs)-1 {
		t.Fatalf("%d requests, shrunk %d", len(reqs), s.Shrunk)
	}
	last := reqs[len(reqs)-1]
	if n := count(last); n+last.Options.MaxTokens > 2048 {
		t.Errorf("the last request still counts %d prompt tokens", n)
	}
	if len(reqs[0].Messages[1].Text()) <= len(last.Messages[1].Text()) {
		t.Error("the text was not cut")
	}
}
