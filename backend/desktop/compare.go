package desktop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"proofglass/backend/atomicfile"
	"proofglass/backend/compare"
)

// CompareService is the window's Compare view: the same items asked of several documents or filters, one agent
// run per cell, the table filling in as compare:progress events (CompareState). One comparison runs at a time; the
// last one's table stays to be saved.
type CompareService struct {
	c *core

	mu     sync.Mutex
	cancel context.CancelFunc
	state  CompareState
	seq    int64
}

// CompareRequest is a comparison as the window asks it: items, and documents (ids) or facet filters as targets.
type CompareRequest struct {
	Items      []string `json:"items"`
	Documents  []int64  `json:"documents,omitempty"`
	Where      []string `json:"where,omitempty"`
	Collection string   `json:"collection,omitempty"`
	Mode       string   `json:"mode,omitempty"`
	Provider   string   `json:"provider,omitempty"`
	Model      string   `json:"model,omitempty"`
	Parallel   int      `json:"parallel,omitempty"` // 0 = compare.DefaultParallel
}

// CompareState is the window's comparison: its table so far (every cell pending, running, done, failed or
// cancelled), whether it still runs, and why it stopped when it failed as a whole.
type CompareState struct {
	// Seq numbers the states of all comparisons in order: events may arrive out of order, and the window keeps the
	// highest it has seen.
	Seq     int64         `json:"seq"`
	Running bool          `json:"running"`
	Table   compare.Table `json:"table"`
	Error   string        `json:"error,omitempty"`
}

// Start checks a comparison and starts it in the background; the table is returned at once with every cell
// pending, then each cell's progress arrives as compare:progress. A comparison already running is refused.
func (s *CompareService) Start(r CompareRequest) (CompareState, error) {
	c := s.c
	// Bounded before anything is looked at: the window's arrays are attacker input.
	if len(r.Items) > compare.MaxItems || len(r.Documents)+len(r.Where) > compare.MaxTargets {
		return CompareState{}, fmt.Errorf("compare: %d items and %d documents or filters, at most %d and %d",
			len(r.Items), len(r.Documents)+len(r.Where), compare.MaxItems, compare.MaxTargets)
	}
	for i, it := range r.Items {
		if err := checkQuery(fmt.Sprintf("item %d", i+1), it); err != nil {
			return CompareState{}, err
		}
	}
	for i, w := range r.Where {
		if err := checkFacet(fmt.Sprintf("filter %d", i+1), w); err != nil {
			return CompareState{}, err
		}
	}
	for what, v := range map[string]string{"mode": r.Mode, "collection": r.Collection, "provider": r.Provider, "model": r.Model} {
		if err := checkName(what, v); err != nil {
			return CompareState{}, err
		}
	}
	var targets []compare.Target
	for _, id := range r.Documents {
		if err := checkID("document", id); err != nil {
			return CompareState{}, err
		}
		targets = append(targets, compare.Target{Doc: fmt.Sprint(id)})
	}
	for _, w := range r.Where {
		targets = append(targets, compare.Target{Where: w})
	}
	req := compare.Request{Items: r.Items, Targets: targets, Collection: r.Collection, Mode: r.Mode, Parallel: r.Parallel}
	req.Options.Provider, req.Options.Model = r.Provider, r.Model
	if err := compare.Check(req); err != nil {
		return CompareState{}, err
	}
	if err := c.ready(); err != nil {
		return CompareState{}, err
	}
	cols, err := compare.Resolve(c.ctx, c.lib, req)
	if err != nil {
		return CompareState{}, err
	}
	s.mu.Lock()
	if s.cancel != nil {
		s.mu.Unlock()
		return CompareState{}, errors.New("a comparison is already running: stop it first")
	}
	ctx, cancel := context.WithCancel(c.ctx)
	s.cancel = cancel
	s.state = CompareState{Running: true, Table: compare.Pending(r.Items, cols)}
	first := s.snapshot()
	s.mu.Unlock()
	req.Progress = func(ev compare.Event) {
		s.mu.Lock()
		t := &s.state.Table
		if ev.Item < len(t.Cells) && ev.Column < len(t.Cells[ev.Item]) {
			if ev.Cell != nil {
				t.Cells[ev.Item][ev.Column] = *ev.Cell
			} else {
				t.Cells[ev.Item][ev.Column].State = ev.State
			}
		}
		st := s.snapshot()
		s.mu.Unlock()
		c.emit(eventCompare, st)
	}
	go func() {
		defer cancel()
		t, err := compare.Compare(ctx, c.lib, req)
		s.mu.Lock()
		s.cancel = nil
		s.state.Running = false
		if len(t.Cells) > 0 {
			s.state.Table = t
		}
		if err != nil {
			s.state.Error = err.Error()
		}
		st := s.snapshot()
		s.mu.Unlock()
		c.emit(eventCompare, st)
	}()
	return first, nil
}

// snapshot copies the state for the window (the cells are copied, so later progress cannot change what was sent),
// numbered after every state sent before it. s.mu must be held.
func (s *CompareService) snapshot() CompareState {
	s.seq++
	st := s.state
	st.Seq = s.seq
	st.Table.Cells = make([][]compare.Cell, len(s.state.Table.Cells))
	for i, row := range s.state.Table.Cells {
		st.Table.Cells[i] = append([]compare.Cell(nil), row...)
	}
	return st
}

// Stop cancels the running comparison: running cells end cancelled, no other starts.
func (s *CompareService) Stop() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// State is the current (or last) comparison.
func (s *CompareService) State() CompareState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot()
}

// Save asks where to save the last comparison's table, in a dialog titled in the window's language, and writes it
// there as CSV, XLSX or Markdown; it returns the path written, "" when the dialog was cancelled. Neither the path
// nor the content comes from the window: the path from the dialog, the table from this service.
func (s *CompareService) Save(format, title string) (string, error) {
	if format != "csv" && format != "xlsx" && format != "md" {
		return "", fmt.Errorf("compare format %q: want csv, xlsx or md", format)
	}
	if err := s.c.ready(); err != nil {
		return "", err
	}
	s.mu.Lock()
	st := s.snapshot()
	s.mu.Unlock()
	if len(st.Table.Items) == 0 {
		return "", errors.New("no comparison to save: compare first")
	}
	var b bytes.Buffer
	if err := compare.Write(&b, st.Table, format); err != nil {
		return "", err
	}
	ui := s.c.window()
	if ui == nil {
		return "", errNoWindow
	}
	path, err := ui.SaveFile(dialogTitle(title, "Save comparison"), "comparison."+format)
	if err != nil || path == "" {
		return "", err
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("save the comparison to %s: %w", path, err)
	}
	return path, nil
}

// stop cancels a running comparison, as the window closes.
func (s *CompareService) stop() { s.Stop() }
