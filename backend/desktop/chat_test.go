package desktop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	got, err := chat.ChooseSavePath("../../.bashrc")
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
	if _, err := chat.ChooseSavePath("x.md"); err == nil {
		t.Error("a failing dialog was not reported")
	}
	if err := chat.WriteTextFile(chosen, "# stale"); err == nil {
		t.Error("a failed dialog left the previous path writable")
	}
}
