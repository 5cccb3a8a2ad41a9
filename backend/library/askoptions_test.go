package library

import (
	"encoding/json"
	"reflect"
	"testing"

	"proofglass/backend/config"
)

func TestAskOptionsRunOptions(t *testing.T) {
	body := `{"mode":"vimrag","think":true,"collection":"reports","provider":"local","model":"qwen",
		"temperature":0.2,"top_p":0.9,"max_tokens":512,"seed":7,"max_steps":6,"top_k":4,"context_length":8192,"calculator":true}`
	var o AskOptions
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	// Every field was set: a field the JSON names missed would stay zero.
	v := reflect.ValueOf(o)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("field %s not decoded from %s", v.Type().Field(i).Name, body)
		}
	}
	think, temp, topP, seed := true, 0.2, 0.9, 7
	want := RunOptions{Mode: "vimrag", Think: &think, Collection: "reports", Provider: "local", Model: "qwen",
		MaxSteps: 6, TopK: 4, ContextLength: 8192, Calculator: true,
		Sampling: config.Sampling{Temperature: &temp, TopP: &topP, MaxTokens: 512, Seed: &seed}}
	if got := o.RunOptions(); !reflect.DeepEqual(got, want) {
		t.Errorf("RunOptions() = %+v, want %+v", got, want)
	}
	// The JSON round trip keeps the names the window's TypeScript model and /v1/ask clients use.
	out, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mode", "think", "collection", "provider", "model", "temperature", "top_p", "max_tokens",
		"seed", "max_steps", "top_k", "context_length", "calculator"} {
		if _, ok := back[name]; !ok {
			t.Errorf("%s missing from %s", name, out)
		}
	}
}
