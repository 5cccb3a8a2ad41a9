package agent

import "fmt"

// State is what a UI shows for a run, built from its events alone. Applying a stored run's events in order gives the
// same State as watching it live; that is what makes runs replayable.
type State struct {
	RunID   string       `json:"run_id"`
	Run     *RunInfo     `json:"run,omitempty"`
	Rewrite *RewriteInfo `json:"rewrite,omitempty"`
	Steps   []StepState  `json:"steps"`
	Graph   *GraphInfo   `json:"graph,omitempty"`
	Answer  *AnswerInfo  `json:"answer,omitempty"`
	Errors  []ErrorInfo  `json:"errors,omitempty"`
	Done    *DoneInfo    `json:"done,omitempty"`
	// Grounding is the answer's grounding pass, when the run made one.
	Grounding *GroundingInfo `json:"grounding,omitempty"`
	LastSeq   int            `json:"last_seq"`
}

// StepState is one model call and what the agent did with its reply.
type StepState struct {
	Step     int            `json:"step"`
	Thinking string         `json:"thinking,omitempty"`
	Content  string         `json:"content,omitempty"`
	Searches []SearchInfo   `json:"searches,omitempty"`
	Results  []ResultsInfo  `json:"results,omitempty"`
	Crops    []CropInfo     `json:"crops,omitempty"`
	Memorize []MemorizeInfo `json:"memorize,omitempty"`
	Errors   []ErrorInfo    `json:"errors,omitempty"`
	// Calculations are the step's calculator calls.
	Calculations []CalculationInfo `json:"calculations,omitempty"`
}

// Apply folds one event into s. Events must come in sequence order without gaps.
func (s *State) Apply(ev Event) error {
	if ev.Seq != s.LastSeq+1 {
		return fmt.Errorf("replay run %s: event %d after %d: missing or out-of-order events", ev.RunID, ev.Seq, s.LastSeq)
	}
	if missingPayload(ev) {
		return fmt.Errorf("replay run %s: event %d (%s) has no payload", ev.RunID, ev.Seq, ev.Kind)
	}
	s.LastSeq = ev.Seq
	if s.RunID == "" {
		s.RunID = ev.RunID
	}
	if s.Steps == nil {
		s.Steps = []StepState{}
	}
	step := func() *StepState {
		if n := len(s.Steps); n == 0 || s.Steps[n-1].Step != ev.Step {
			s.Steps = append(s.Steps, StepState{Step: ev.Step})
		}
		return &s.Steps[len(s.Steps)-1]
	}
	switch ev.Kind {
	case KindRunStarted:
		s.Run = ev.Run
	case KindRewrite:
		s.Rewrite = ev.Rewrite
	case KindThinking:
		step().Thinking += ev.Text
	case KindContent:
		step().Content += ev.Text
	case KindSearch:
		st := step()
		st.Searches = append(st.Searches, *ev.Search)
	case KindResults:
		st := step()
		st.Results = append(st.Results, *ev.Results)
	case KindCrop:
		st := step()
		st.Crops = append(st.Crops, *ev.Crop)
	case KindMemorize:
		st := step()
		st.Memorize = append(st.Memorize, *ev.Memorize)
	case KindCalculation:
		st := step()
		st.Calculations = append(st.Calculations, *ev.Calculation)
	case KindGraph:
		s.Graph = ev.Graph
	case KindAnswer:
		s.Answer = ev.Answer
	case KindError:
		s.Errors = append(s.Errors, *ev.Error)
		if ev.Step > 0 {
			st := step()
			st.Errors = append(st.Errors, *ev.Error)
		}
	case KindDone:
		s.Done = ev.Done
	case KindGrounding:
		s.Grounding = ev.Grounding
	default:
		// Unknown kinds come from newer writers; skipping them keeps old readers working.
	}
	return nil
}

func missingPayload(ev Event) bool {
	switch ev.Kind {
	case KindRunStarted:
		return ev.Run == nil
	case KindRewrite:
		return ev.Rewrite == nil
	case KindSearch:
		return ev.Search == nil
	case KindResults:
		return ev.Results == nil
	case KindCrop:
		return ev.Crop == nil
	case KindMemorize:
		return ev.Memorize == nil
	case KindGraph:
		return ev.Graph == nil
	case KindAnswer:
		return ev.Answer == nil
	case KindError:
		return ev.Error == nil
	case KindDone:
		return ev.Done == nil
	case KindGrounding:
		return ev.Grounding == nil
	case KindCalculation:
		return ev.Calculation == nil
	}
	return false
}

// Replay builds the State of a stored run.
func Replay(events []Event) (State, error) {
	var s State
	for _, ev := range events {
		if err := s.Apply(ev); err != nil {
			return s, err
		}
	}
	return s, nil
}
