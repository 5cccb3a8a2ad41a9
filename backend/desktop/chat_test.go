package desktop

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
	"proofglass/backend/library"
)

// Questions are checked as untrusted input; a question for a profile that does not exist fails before any run starts
// and leaves no run behind.
func TestChatAskRejects(t *testing.T) {
	d, ui := start(t)
	chat := d.Chat
	bad := map[string]AskRequest{
		"1 MB question":        {Question: strings.Repeat("x", 1<<20)},
		"invalid UTF-8":        {Question: "\xff\xfe"},
		"control char in mode": {Question: "q", AskOptions: library.AskOptions{Mode: "fast\n"}},
		"huge model name":      {Question: "q", AskOptions: library.AskOptions{Model: strings.Repeat("m", 300)}},
		"too many documents":   {Question: "q", Documents: make([]int64, maxPaths+1)},
		"unknown provider":     {Question: "q", AskOptions: library.AskOptions{Provider: "nope"}},
	}
	for name, r := range bad {
		if got, err := chat.Ask(r); err == nil {
			t.Errorf("%s: Ask = %+v, want an error", name, got)
		}
	}
	if n := len(chat.runs); n != 0 {
		t.Errorf("%d runs left after failed asks", n)
	}
	if evs := ui.named(eventAgent); len(evs) != 0 {
		t.Errorf("failed asks emitted agent events: %v", evs)
	}
	chat.Stop("no-such-run") // stopping what does not run is harmless
}

func TestChatConversations(t *testing.T) {
	d, _ := start(t)
	chat := d.Chat
	cs, err := chat.Conversations()
	if err != nil || len(cs) != 0 {
		t.Fatalf("Conversations of a new library = %+v, %v", cs, err)
	}
	id, err := d.core.lib.BeginTurn(d.core.ctx, 0, "what is on page 2?")
	if err != nil {
		t.Fatal(err)
	}
	cs, err = chat.Conversations()
	if err != nil || len(cs) != 1 || cs[0].ID != id {
		t.Fatalf("Conversations = %+v, %v, want conversation %d", cs, err, id)
	}
	ms, err := chat.Messages(id)
	if err != nil || len(ms) != 1 || ms[0].Content != "what is on page 2?" || ms[0].Role != "user" {
		t.Fatalf("Messages = %+v, %v", ms, err)
	}
	if err := chat.DeleteConversation(id); err != nil {
		t.Fatal(err)
	}
	if cs, err := chat.Conversations(); err != nil || len(cs) != 0 {
		t.Errorf("Conversations after delete = %+v, %v", cs, err)
	}
	if evs, err := chat.RunEvents(987654); err != nil || len(evs) != 0 {
		t.Errorf("RunEvents of an unknown run = %v, %v", evs, err)
	}
	for name, err := range map[string]error{
		"messages of id 0":      second(chat.Messages(0)),
		"delete id -1":          chat.DeleteConversation(-1),
		"run events of id 0":    second(chat.RunEvents(0)),
		"run events of huge id": second(chat.RunEvents(maxID + 1)),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// An export is written only to the path the save dialog returned, once: a page script cannot write anywhere else.
func TestChatExportOnlyWhereTheUserChose(t *testing.T) {
	d, ui := start(t)
	chat := d.Chat
	dir := t.TempDir()
	chosen := filepath.Join(dir, "talk.md")
	ui.save = chosen
	got, err := chat.ChooseSavePath("../../.bashrc", "")
	if err != nil || got != chosen {
		t.Fatalf("ChooseSavePath = %q, %v", got, err)
	}
	if ui.names[0] != "conversation.md" || ui.titles[0] != "Export conversation" {
		t.Errorf("the dialog suggested %q (title %q): a name with a slash must become conversation.md", ui.names[0], ui.titles[0])
	}
	other := filepath.Join(dir, "other.md")
	if err := chat.WriteTextFile(other, "# pwned"); err == nil {
		t.Error("WriteTextFile wrote a path the dialog did not return")
	}
	if err := chat.WriteTextFile(chosen, "# Talk"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(chosen); err != nil || string(b) != "# Talk" {
		t.Errorf("the export holds %q, %v", b, err)
	}
	if err := chat.WriteTextFile(chosen, "# again"); err == nil {
		t.Error("WriteTextFile wrote the chosen path twice")
	}

	ui.save, ui.dialogErr = "", errors.New("dialog failed")
	if _, err := chat.ChooseSavePath("x.md", "导出对话"); err == nil {
		t.Error("a failing dialog was not reported")
	}
	if title := ui.titles[len(ui.titles)-1]; title != "导出对话" {
		t.Errorf("the save dialog's title is %q, not the window's", title)
	}
	if err := chat.WriteTextFile(chosen, "# stale"); err == nil {
		t.Error("a failed dialog left the previous path writable")
	}
}

// scriptedModel is an OpenAI-compatible /v1/chat/completions that streams the turns of a script in order.
func scriptedModel(t *testing.T, turns ...string) *httptest.Server {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		turn := turns[min(n, len(turns)-1)]
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		for _, m := range []map[string]any{
			{"id": "c1", "object": "chat.completion.chunk", "model": "vis-1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": turn}}}},
			{"id": "c1", "object": "chat.completion.chunk", "model": "vis-1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}},
		} {
			b, _ := json.Marshal(m)
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A question runs the agent in the background: its events stream as agent:event from run_started to done, and the
// conversation, its answer and the run's events are stored for the window to reopen and replay.
func TestChatAskRunsAndStores(t *testing.T) {
	d, ui := start(t)
	addAndWait(t, d, ui, "papers", samplePDF(t))
	model := scriptedModel(t,
		"<think>Find the speech.</think>\n<search>four score and seven years ago</search>",
		"<answer>It begins: four score and seven years ago.</answer>")
	cur, _ := d.Settings.Settings()
	if err := d.Settings.SaveSettings(fromWindow(t, cur, func(m map[string]any) {
		for _, p := range m["providers"].([]any) {
			if p := p.(map[string]any); p["name"] == "openai" {
				p["base_url"], p["chat_model"], p["embed_model"] = model.URL+"/v1", "vis-1", ""
			}
		}
		m["agent"].(map[string]any)["provider"] = "openai"
	})); err != nil {
		t.Fatal(err)
	}

	started, err := d.Chat.Ask(AskRequest{Question: "How does the speech begin?",
		AskOptions: library.AskOptions{Mode: "vrag", Collection: "papers"}})
	if err != nil {
		t.Fatal(err)
	}
	if started.RunID == "" || started.ConversationID <= 0 {
		t.Fatalf("Ask = %+v", started)
	}
	done := ui.waitFor(t, eventAgent, func(e any) bool {
		ev := e.(agent.Event)
		return ev.RunID == started.RunID && ev.Kind == agent.KindDone
	}).(agent.Event)
	kinds := map[agent.Kind]bool{}
	for _, e := range ui.named(eventAgent) {
		kinds[e.(agent.Event).Kind] = true
	}
	for _, k := range []agent.Kind{agent.KindRunStarted, agent.KindSearch, agent.KindAnswer} {
		if !kinds[k] {
			t.Errorf("no %s event among %v (done: %+v)", k, kinds, done)
		}
	}

	// The answer is stored once the run returns, just after its done event.
	var ms []kb.Message
	var err2 error
	eventually(t, "the answer is stored", func() bool {
		ms, err2 = d.Chat.Messages(started.ConversationID)
		return err2 != nil || len(ms) >= 2
	})
	err = err2
	if err != nil || len(ms) != 2 || ms[1].Role != "assistant" || !strings.Contains(ms[1].Content, "four score") || ms[1].RunID <= 0 {
		t.Fatalf("Messages = %+v, %v", ms, err)
	}
	evs, err := d.Chat.RunEvents(ms[1].RunID)
	if err != nil || len(evs) == 0 {
		t.Fatalf("RunEvents = %d events, %v", len(evs), err)
	}
	var last agent.Event
	if err := json.Unmarshal(evs[len(evs)-1], &last); err != nil || last.Kind != agent.KindDone {
		t.Errorf("the stored run ends with %+v, %v; want done", last, err)
	}
	if cs, err := d.Chat.Conversations(); err != nil || len(cs) != 1 || cs[0].ID != started.ConversationID {
		t.Errorf("Conversations = %+v, %v", cs, err)
	}
	// A finished run is forgotten: Stop has nothing left to cancel.
	eventually(t, "the finished run is forgotten", func() bool {
		d.Chat.mu.Lock()
		defer d.Chat.mu.Unlock()
		return len(d.Chat.runs) == 0
	})
}
