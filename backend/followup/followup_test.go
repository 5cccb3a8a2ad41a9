package followup

import (
	"context"
	"errors"
	"strings"
	"testing"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

var history = []Turn{{
	Question:  "What was the operating margin in 2019?",
	Answer:    "The operating margin was 12.4% in 2019.",
	Citations: []Citation{{Document: "annual-report.pdf", Page: 14}, {Document: "annual-report.pdf", Page: 14}},
}}

func TestDecide(t *testing.T) {
	cases := map[string]struct {
		history  []Turn
		question string
		rewrite  bool
		reason   string
	}{
		"first question of a conversation":  {nil, "And in 2020?", false, "first_turn"},
		"elliptic follow-up":                {history, "And in 2020?", true, "follow_up"},
		"pronoun":                           {history, "Why did it fall the year after?", true, "follow_up"},
		"what about":                        {history, "What about the net margin", true, "follow_up"},
		"short fragment":                    {history, "In 2021?", true, "follow_up"},
		"this report":                       {history, "Who audited this report?", true, "follow_up"},
		"self-contained question":           {history, "Who is the chief executive of Acme Corporation in 2021?", false, "standalone"},
		"Chinese pronoun":                   {history, "它在2020年是多少？", true, "follow_up"},
		"self-contained Chinese question":   {history, "阿克米公司2021年的营业收入是多少？", false, "standalone"},
		"capitalised opener with extra wsp": {history, "  And for the second quarter of the fiscal year?", true, "follow_up"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			d := Decide(c.history, c.question)
			if d.Rewrite != c.rewrite || d.Reason != c.reason {
				t.Errorf("Decide(%q) = %+v, want rewrite=%v reason=%s", c.question, d, c.rewrite, c.reason)
			}
		})
	}
}

func TestParse(t *testing.T) {
	cases := map[string]struct {
		reply, want string
		ok          bool
	}{
		"plain line":               {"What was the operating margin in 2020?", "What was the operating margin in 2020?", true},
		"label and quotes":         {"Standalone question: \"What was the operating margin in 2020?\"", "What was the operating margin in 2020?", true},
		"thinking first":           {"<think>the user means margin</think>\n\nWhat was the operating margin in 2020?\n", "What was the operating margin in 2020?", true},
		"extra lines are dropped":  {"What was the operating margin in 2020?\nThis asks about 2020.", "What was the operating margin in 2020?", true},
		"empty reply":              {"  \n", "", false},
		"unclosed thinking":        {"<think>hmm, the margin", "", false},
		"an essay, not a question": {strings.Repeat("word ", 400), "", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := Parse(c.reply, "And in 2020?")
			if got != c.want || ok != c.ok {
				t.Errorf("Parse = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestMessagesCarryTheConversation(t *testing.T) {
	msgs := Messages(history, "And in 2020?")
	if len(msgs) != 2 || msgs[0].Role != model.RoleSystem || msgs[0].Text() != SystemPrompt {
		t.Fatalf("messages %+v", msgs)
	}
	u := msgs[1].Text()
	for _, want := range []string{"User: What was the operating margin in 2019?", "Assistant: The operating margin was 12.4% in 2019.",
		"(cited: annual-report.pdf p. 14)\n", "Last question: And in 2020?"} {
		if !strings.Contains(u, want) {
			t.Errorf("user message lacks %q:\n%s", want, u)
		}
	}
	// Only the most recent turns go in, and long answers are cut.
	var long []Turn
	for i := range 10 {
		long = append(long, Turn{Question: "q" + string(rune('A'+i)), Answer: strings.Repeat("x", 5000)})
	}
	u = Messages(long, "and?")[1].Text()
	if strings.Contains(u, "User: qA") || !strings.Contains(u, "User: qJ") || len(u) > MaxTurns*(maxAnswerRunes+100)+200 {
		t.Errorf("history not bounded: %d bytes, %q…", len(u), u[:80])
	}
}

func TestRewriteKeepsTheRunsOptions(t *testing.T) {
	temp, seed, think := 0.6, 7, true
	var got model.Request
	chat := modeltest.Func(func(r model.Request) (string, error) { got = r; return "What was the operating margin in 2020?", nil })
	res, err := Rewrite(context.Background(), chat, "qwen", model.Options{Temperature: &temp, Seed: &seed, Think: &think, MaxTokens: 4096}, false, history, "And in 2020?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Question != "What was the operating margin in 2020?" || res.Usage.PromptTokens != 100 || res.Usage.CompletionTokens != 10 {
		t.Errorf("result %+v", res)
	}
	o := got.Options
	if got.Model != "qwen" || o.Temperature == nil || *o.Temperature != 0.6 || o.Seed == nil || *o.Seed != 7 {
		t.Errorf("the run's sampling was not kept: %+v", o)
	}
	if o.Think == nil || *o.Think || o.MaxTokens != maxTokens {
		t.Errorf("thinking must be off and the reply capped: %+v", o)
	}

	// A run that did not touch thinking leaves it to the model (Ollama refuses "think" for models without it);
	// a run that asked for thinking has it turned off for the rewrite.
	for _, c := range []struct {
		thinks bool
		want   *bool
	}{{false, nil}, {true, new(bool)}} {
		if _, err := Rewrite(context.Background(), chat, "qwen", model.Options{}, c.thinks, history, "And in 2020?"); err != nil {
			t.Fatal(err)
		}
		if (got.Options.Think == nil) != (c.want == nil) || (got.Options.Think != nil && *got.Options.Think) {
			t.Errorf("thinks=%v: think option %v", c.thinks, got.Options.Think)
		}
	}

	_, err = Rewrite(context.Background(), modeltest.Func(func(model.Request) (string, error) { return "", nil }), "qwen", model.Options{}, false, history, "And in 2020?")
	if !errors.Is(err, ErrBadRewrite) {
		t.Errorf("empty reply: %v", err)
	}
	boom := errors.New("connection refused")
	_, err = Rewrite(context.Background(), modeltest.Func(func(model.Request) (string, error) { return "", boom }), "qwen", model.Options{}, false, history, "And in 2020?")
	if !errors.Is(err, boom) {
		t.Errorf("model error: %v", err)
	}
}
