package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"proofglass/backend/agent"
	fx "proofglass/backend/fixture"
	"proofglass/backend/library"
	"proofglass/backend/model/modeltest"
)

// sseEvents reads every event of an event stream.
func sseEvents(t *testing.T, f *fixture, body map[string]any) []agent.Event {
	t.Helper()
	resp := f.do(t, "POST", "/v1/ask", f.token, body)
	if resp.StatusCode != 200 {
		t.Fatalf("ask: %d", resp.StatusCode)
	}
	var evs []agent.Event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev agent.Event
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatalf("bad data line %q: %v", data, err)
			}
			evs = append(evs, ev)
		}
	}
	return evs
}

// TestAskAgainstASilentModel: a model server that accepts and never answers gets run_started first, then a clear
// error once the look-up bound passes, and the run ends (its slot free, the server no longer held).
func TestAskAgainstASilentModel(t *testing.T) {
	silent := &modeltest.Silent{}
	hs := httptest.NewServer(silent)
	defer hs.Close()
	t.Setenv("OPENAI_BASE_URL", hs.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("PROOFGLASS_MODEL_LOOKUP_TIMEOUT", "300ms")
	// A library of its own: the shared fixture's settings were read before this test pointed the provider here.
	lib, err := library.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	srv, err := New(lib, Options{Token: "lookup-test-token-1c7e", Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	f := &fixture{lib: lib, token: "lookup-test-token-1c7e", srv: ts}
	for i := range 6 { // more runs than slots: each one ends and frees its slot
		evs := sseEvents(t, f, map[string]any{"question": "How much blood was lost?", "mode": "vanilla",
			"provider": "openai", "model": "never-answers"})
		var kinds []string
		for _, ev := range evs {
			kinds = append(kinds, string(ev.Kind))
		}
		if got := strings.Join(kinds, ","); got != "run_started,error,done" {
			t.Fatalf("run %d: events %s, want run_started,error,done", i, got)
		}
		e := evs[1].Error
		if e.Code != "model_unreachable" || !strings.Contains(e.Message, "did not answer a look-up of never-answers within 300ms") {
			t.Fatalf("error %+v", e)
		}
		if evs[2].Done.Status != agent.StatusFailed {
			t.Errorf("done %+v", evs[2].Done)
		}
	}
	if silent.Seen() != 6 {
		t.Errorf("the model server saw %d requests, want one look-up per run", silent.Seen())
	}

	// run_started does not wait for the look-up: it arrives while the model server still holds it, and a client
	// that leaves then stops the run.
	t.Setenv("PROOFGLASS_MODEL_LOOKUP_TIMEOUT", "10m")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/ask", strings.NewReader(
		`{"question":"How much blood was lost?","mode":"vanilla","provider":"openai","model":"never-answers"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var first agent.Event
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if err := json.Unmarshal([]byte(data), &first); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if first.Kind != agent.KindRunStarted {
		t.Fatalf("first event %+v, want run_started", first)
	}
	if held := silent.Held(); held != 1 {
		t.Fatalf("run_started came with %d look-ups held by the model server, want it before the look-up's answer", held)
	}
	cancel()
	fx.WaitFor(t, time.Minute, func() bool { return silent.Held() == 0 }, "the run to stop waiting for the model after its client left")
	fx.WaitFor(t, time.Minute, func() bool {
		runs, err := lib.KB.History.Runs(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(runs) == 7 && runs[0].Status == "cancelled"
	}, "the run left by its client to be stored as cancelled")
}
