package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/model/modeltest"
)

// TestAskJSONConversationID: `ask --json` says in its first event which conversation it began, and a script that
// reads it continues that conversation with --conversation.
func TestAskJSONConversationID(t *testing.T) {
	data := t.TempDir()
	askKB(t, data, "pdf/real/blood_loss_report.pdf")
	hs := httptest.NewServer(&modeltest.Server{Turns: []string{"<think>Enough.</think>\n<answer>Blood loss is measured.</answer>"}})
	defer hs.Close()
	openAIEnv(t, hs.URL)
	ctx := context.Background()
	ask := func(args ...string) []agent.Event {
		t.Helper()
		out, err := cli(ctx, data, append([]string{"ask", "--json", "--mode", "vanilla", "--provider", "openai", "--model", "m"}, args...)...)
		if err != nil {
			t.Fatalf("ask %v: %v\n%s", args, err, out)
		}
		var evs []agent.Event
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var ev agent.Event
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("not a JSON event line: %q (%v)", line, err)
			}
			evs = append(evs, ev)
		}
		return evs
	}
	first := ask("What is measured?")
	if first[0].Kind != agent.KindRunStarted || first[0].Run == nil || first[0].Run.Conversation <= 0 {
		t.Fatalf("first event %+v, want run_started with the conversation id", first[0])
	}
	if last := first[len(first)-1]; last.Kind != agent.KindDone || last.Done.Status != agent.StatusAnswered {
		t.Fatalf("last event %+v", last)
	}
	conv := first[0].Run.Conversation
	second := ask("--conversation", strconv.FormatInt(conv, 10), "And how?")
	if second[0].Run == nil || second[0].Run.Conversation != conv {
		t.Fatalf("follow-up's run_started %+v, want conversation %d", second[0].Run, conv)
	}

	k := openData(t, data)
	defer k.Close()
	msgs, err := k.History.Messages(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role+":"+m.Content)
	}
	want := "user:What is measured? | assistant:Blood loss is measured. | user:And how? | assistant:Blood loss is measured."
	if got := strings.Join(roles, " | "); got != want {
		t.Fatalf("conversation %d holds %q, want %q", conv, got, want)
	}
	if cs, _ := k.History.Conversations(ctx); len(cs) != 1 {
		t.Errorf("%d conversations, want the one continued", len(cs))
	}
}
