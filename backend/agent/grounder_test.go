package agent

import (
	"context"
	"errors"
	"slices"
	"testing"

	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
)

// fakeGrounder returns info or err and remembers what it was given.
type fakeGrounder struct {
	info   *GroundingInfo
	err    error
	answer AnswerInfo
	trail  []Kind
}

func (g *fakeGrounder) Ground(_ context.Context, a AnswerInfo, trail []Event) (*GroundingInfo, error) {
	g.answer = a
	for _, ev := range trail {
		g.trail = append(g.trail, ev.Kind)
	}
	return g.info, g.err
}

func TestGrounderHook(t *testing.T) {
	cases := []struct {
		name  string
		g     *fakeGrounder
		tail  []Kind // the run's last events
		error string // the code of a recoverable error event, when one is wanted
	}{
		{"a pass becomes the grounding event between answer and done",
			&fakeGrounder{info: &GroundingInfo{Summary: "1 of 1 figure found in the cited evidence", Claims: []GroundedClaim{}}},
			[]Kind{KindAnswer, KindGrounding, KindDone}, ""},
		{"a failed pass is a recoverable error and the answer stands",
			&fakeGrounder{err: errors.New("disk gone")},
			[]Kind{KindAnswer, KindError, KindDone}, "grounding"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kb := newPageKB(t)
			kb.rank["What is on page 3?"] = []int{3, 1, 2, 4}
			chat := &modeltest.Script{Replies: []model.Delta{text("<answer>a table of 12 rows</answer>")}}
			a, _ := newTestAgent(kb, chat)
			a.Grounder = tc.g
			rec := &recorder{}
			res, err := a.Run(context.Background(), "r", Config{Mode: ModeVanilla, TopK: 2}, "What is on page 3?", rec.sink)
			if err != nil || res.Status != StatusAnswered {
				t.Fatalf("%v %+v", err, res)
			}
			kinds := rec.kinds()
			if got := kinds[len(kinds)-len(tc.tail):]; !slices.Equal(got, tc.tail) {
				t.Fatalf("events end %v, want %v", got, tc.tail)
			}
			if tc.g.answer.Text != "a table of 12 rows" || !slices.Equal(tc.g.trail, []Kind{KindResults, KindAnswer}) {
				t.Fatalf("grounder given %+v after %v", tc.g.answer, tc.g.trail)
			}
			if tc.error != "" {
				e := rec.of(KindError)
				if len(e) != 1 || e[0].Error.Code != tc.error || !e[0].Error.Recoverable {
					t.Fatalf("error events %+v", e)
				}
				return
			}
			g := rec.of(KindGrounding)
			if len(g) != 1 || g[0].Grounding.Summary != tc.g.info.Summary {
				t.Fatalf("grounding events %+v", g)
			}
			st, err := Replay(rec.evs)
			if err != nil || st.Grounding == nil || st.Grounding.Summary != tc.g.info.Summary {
				t.Fatalf("replayed %+v: %v", st.Grounding, err)
			}
			checkEventStream(t, rec.evs, "r")
		})
	}
}

// A run without an answer (the model failed) is not grounded.
func TestGrounderNotCalledWithoutAnswer(t *testing.T) {
	kb := newPageKB(t)
	kb.rank["q"] = []int{1}
	chat := &modeltest.Script{Replies: []model.Delta{}}
	a, _ := newTestAgent(kb, chat)
	g := &fakeGrounder{info: &GroundingInfo{}}
	a.Grounder = g
	rec := &recorder{}
	_, _ = a.Run(context.Background(), "r", Config{Mode: ModeVanilla}, "q", rec.sink)
	if g.trail != nil || len(rec.of(KindGrounding)) != 0 {
		t.Fatalf("grounded a run without an answer: %v", rec.kinds())
	}
}
