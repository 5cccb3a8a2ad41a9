package compare

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/model/ollama"
)

// slowChat holds every call of its model for a fixed time before answering: a stand-in for a model server's latency,
// so the measure shows what running cells side by side saves when the model, not Proofglass, is the wait.
type slowChat struct {
	next  model.Chat
	delay time.Duration
}

func (c slowChat) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(c.delay):
	}
	return c.next.Chat(ctx, req)
}

// TestCompareMeasure compares 3 real documents on 4 items, one cell after another and 3 at once: with the scripted
// VRAG model (instant, and held 100 ms a call as a model server's latency) and, when the harness Ollama is up, with
// its tiny-vision model (vanilla, one call a cell; and VRAG held to 3 steps: its words mean nothing, so the loop runs
// to its step limit). It
// prints model turns and wall time and the ratio of the two; nothing is asserted on times. Run with
// PROOFGLASS_COMPARE_MEASURE=1 (PROOFGLASS_COMPARE_LATENCY_MS sets the held time).
func TestCompareMeasure(t *testing.T) {
	if os.Getenv("PROOFGLASS_COMPARE_MEASURE") != "1" {
		t.Skip("set PROOFGLASS_COMPARE_MEASURE=1 to measure comparisons")
	}
	ctx := context.Background()
	lib, docs := openLibrary(t)
	items := []string{"blood loss", "analysis of variance", "graphical display", "sample size"}
	latency := 100 * time.Millisecond
	if s := os.Getenv("PROOFGLASS_COMPARE_LATENCY_MS"); s != "" {
		ms, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("PROOFGLASS_COMPARE_LATENCY_MS=%q: %v", s, err)
		}
		latency = time.Duration(ms) * time.Millisecond
	}
	scripted := func() model.Chat { return searcher(items, func(q string) string { return "On " + q + "." }, nil) }
	type setup struct {
		name string
		chat func() model.Chat
		req  Request
	}
	setups := []setup{
		{"scripted vrag, instant", scripted, Request{Mode: "vrag"}},
		{fmt.Sprintf("scripted vrag, %v a call", latency), func() model.Chat { return slowChat{scripted(), latency} }, Request{Mode: "vrag"}},
	}
	if host := os.Getenv("OLLAMA_HOST"); host != "" {
		c, err := ollama.New(modeltest.OllamaURL(t), ollama.Options{})
		if err != nil {
			t.Fatal(err)
		}
		zero, seed := 0.0, 1
		o := Request{Mode: "vanilla"}
		o.Options.Model = "tiny-vision"
		o.Options.TopK = 1
		o.Options.Sampling.Temperature, o.Options.Sampling.Seed, o.Options.Sampling.MaxTokens = &zero, &seed, 16
		setups = append(setups, setup{"ollama tiny-vision, vanilla", func() model.Chat { return c }, o})
		// VRAG over it: its replies never search nor answer, so each run goes to the step limit (3) and a fallback.
		v := o
		v.Mode, v.Options.MaxSteps = "vrag", 3
		setups = append(setups, setup{"ollama tiny-vision, vrag 3 steps", func() model.Chat { return c }, v})
	} else {
		t.Log("OLLAMA_HOST is not set: no real-model measure (export \"$(../shared/tools/ollama-e2e/up.sh)\")")
	}
	// One comparison first, not measured: the pages' first renders and the searcher's first reads land in it.
	if _, err := Compare(ctx, lib, Request{Items: items, Targets: docTargets(docs), Mode: "vrag", Parallel: 3, Chat: scripted()}); err != nil {
		t.Fatal(err)
	}
	for _, s := range setups {
		var walls [2]time.Duration
		for k, parallel := range []int{1, 3} {
			req := s.req
			req.Items, req.Targets, req.Parallel, req.Chat = items, docTargets(docs), parallel, s.chat()
			start := time.Now()
			tab, err := Compare(ctx, lib, req)
			walls[k] = time.Since(start)
			if err != nil {
				t.Fatalf("%s, parallel %d: %v", s.name, parallel, err)
			}
			turns, done, cellMS := 0, 0, int64(0)
			for _, row := range tab.Cells {
				for _, c := range row {
					turns += c.Turns
					cellMS += c.ElapsedMS
					if c.State == StateDone {
						done++
					} else {
						t.Logf("  cell %d,%d %s: %s", c.Item, c.Column, c.State, c.Error)
					}
				}
			}
			fmt.Printf("compare measure: %-32s parallel %d: %d×%d cells, %d done, %d model turns, wall %v, cells' own time %v\n",
				s.name, parallel, len(items), len(docs), done, turns, walls[k].Round(time.Millisecond), (time.Duration(cellMS) * time.Millisecond).Round(time.Millisecond))
		}
		fmt.Printf("compare measure: %-32s one after another / 3 at once = %.2f×\n", s.name, walls[0].Seconds()/walls[1].Seconds())
	}
}
