package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// slowLimits answers the limits look-up after its release channel closes (never, when nil) or its context ends.
type slowLimits struct {
	sc      *modeltest.Script
	limits  model.Limits
	release chan struct{}
	asked   chan struct{} // closed when the look-up starts
}

func (c slowLimits) Chat(ctx context.Context, req model.Request) (model.Stream, error) {
	return c.sc.Chat(ctx, req)
}

func (c slowLimits) Limits(ctx context.Context, _ string) (model.Limits, error) {
	close(c.asked)
	select {
	case <-c.release:
		return c.limits, nil
	case <-ctx.Done():
		return model.Limits{}, ctx.Err()
	}
}

// TestSlowModelLookUp: run_started does not wait for a slow look-up; the run plans when the look-up answers and fails
// clearly when it never does.
func TestSlowModelLookUp(t *testing.T) {
	t.Run("never answers", func(t *testing.T) {
		sc := &modeltest.Script{Replies: vragScript()}
		a, _ := newTestAgent(newPageKB(t), sc)
		a.Chat = slowLimits{sc: sc, asked: make(chan struct{})}
		a.LookupTimeout = 400 * time.Millisecond
		rec := &recorder{}
		res, err := a.Run(context.Background(), "r", Config{Mode: ModeVRAG}, "How much blood?", rec.sink)
		if err == nil || res.Status != StatusFailed {
			t.Fatalf("run %v %v, want failed", res.Status, err)
		}
		var kinds []string
		for _, ev := range rec.evs {
			kinds = append(kinds, string(ev.Kind))
		}
		if got := strings.Join(kinds, ","); got != "run_started,error,done" {
			t.Fatalf("events %s", got)
		}
		if e := rec.evs[1].Error; e.Code != "model_unreachable" || !strings.Contains(e.Message, "within 400ms") {
			t.Fatalf("error %+v", e)
		}
		if len(sc.Requests()) != 0 {
			t.Errorf("%d model calls after a look-up that never answered", len(sc.Requests()))
		}
	})
	t.Run("answers late", func(t *testing.T) {
		kb := newPageKB(t)
		kb.rank["q1"], kb.rank["q2"] = []int{1}, []int{2}
		sc := &modeltest.Script{Replies: vragScript(), Prompt: plausible(1.0 / 3)}
		a, _ := newTestAgent(kb, sc)
		slow := slowLimits{sc: sc, limits: model.Limits{ContextLength: 32768, Adjustable: true}, release: make(chan struct{}),
			asked: make(chan struct{})}
		a.Chat = slow
		a.LookupTimeout = time.Minute
		started := make(chan struct{})
		rec := &recorder{}
		sink := func(ev Event) {
			rec.sink(ev)
			if ev.Kind == KindRunStarted {
				close(started)
			}
		}
		done := make(chan Result, 1)
		go func() {
			res, err := a.Run(context.Background(), "r", Config{Mode: ModeVRAG}, "How much blood?", sink)
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		<-started // before the look-up has answered
		close(slow.release)
		res := <-done
		if rec.evs[0].Run.Context != nil {
			t.Errorf("run_started sent before the look-up answered carries a plan: %+v", rec.evs[0].Run.Context)
		}
		if res.Status != StatusAnswered || res.Options.NumCtx == 0 {
			t.Fatalf("run %v with num_ctx %d, want answered with the planned window", res.Status, res.Options.NumCtx)
		}
		for i, req := range sc.Requests() {
			if req.Options.NumCtx != res.Options.NumCtx {
				t.Errorf("call %d num_ctx %d, want %d", i+1, req.Options.NumCtx, res.Options.NumCtx)
			}
		}
	})
}
