// Package compare asks the same items of several documents or facet filters side by side: one agent run scoped to each target per item, run in parallel and cancellable, into a table of answers with their citations and grounding marks, exported as CSV, XLSX, Markdown or JSON.
package compare

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"proofglass/backend/agent"
	"proofglass/backend/library"
	"proofglass/backend/model"
)

// Limits on one comparison: every face checks its input against them through Compare.
const (
	MaxItems        = 20   // items asked of every target
	MaxTargets      = 8    // documents or filters compared
	MaxItemRunes    = 1000 // one item's length
	MaxTargetRunes  = 500  // one document reference's or filter's length
	MaxParallel     = 8    // runs at once
	DefaultParallel = 3
)

// Cell states.
const (
	StatePending   = "pending"
	StateRunning   = "running"
	StateDone      = "done"
	StateFailed    = "failed"
	StateCancelled = "cancelled"
)

// Grounding marks of a cell: what the grounding check made of its answer's figures and names.
const (
	MarkGrounded   = "grounded"   // every checked claim was found in the evidence the answer cites
	MarkPartial    = "partial"    // some were, others only elsewhere or not at all
	MarkMismatch   = "mismatch"   // the cited evidence has a different value for at least one claim
	MarkUngrounded = "ungrounded" // none was found in the cited evidence
	MarkNoClaims   = "no_claims"  // the answer has nothing to check
	MarkUnchecked  = "unchecked"  // no grounding pass (no answer, a failed or cancelled run)
)

// Target is one column of the table: exactly one of a document (its id or file name) or a facet filter
// ("org=acme,year=2022").
type Target struct {
	Doc   string `json:"doc,omitempty"`
	Where string `json:"where,omitempty"`
}

// Request is one comparison.
type Request struct {
	Items      []string
	Targets    []Target
	Collection string // "" = every collection
	Mode       string // the agent mode ("" = the settings' default); over Options.Mode
	Options    library.RunOptions
	Parallel   int // runs at once: 0 = DefaultParallel, at most MaxParallel
	// Progress sees every cell's progress as it happens, one call at a time.
	Progress func(Event)
	// Slot, when set, is taken before each cell's run and released after it: a face's limit on concurrent agent
	// runs (MCP and /v1/ask share one). A cell that gets no slot fails with Slot's error.
	Slot func(context.Context) (release func(), err error)
	// Chat runs every cell with this client instead of the profile's (tests; faces given a model).
	Chat model.Chat
	Log  *slog.Logger
}

// Column is a target as resolved: its label (the document's file name, or the filter) and the documents it scopes.
type Column struct {
	Label     string  `json:"label"`
	Doc       string  `json:"doc,omitempty"`
	Where     string  `json:"where,omitempty"`
	Documents []int64 `json:"documents"`
}

// Cell is the answer to one item from one target.
type Cell struct {
	Item      int              `json:"item"`
	Column    int              `json:"column"`
	State     string           `json:"state"`
	Answer    string           `json:"answer,omitempty"`
	Forced    bool             `json:"forced,omitempty"` // the step limit ran out: the answer is the fallback
	Citations []agent.Citation `json:"citations"`
	Mark      string           `json:"mark"`
	// Grounding is the grounding check's one line ("2 of 2 figures found in the cited evidence").
	Grounding string `json:"grounding,omitempty"`
	RunID     int64  `json:"run_id,omitempty"`
	Error     string `json:"error,omitempty"`
	Turns     int    `json:"turns"` // model calls
	ElapsedMS int64  `json:"elapsed_ms"`
}

// Table is a comparison's result: Cells[item][column].
type Table struct {
	Items   []string `json:"items"`
	Columns []Column `json:"columns"`
	Cells   [][]Cell `json:"cells"`
	WallMS  int64    `json:"wall_ms"`
}

// Event is a cell's progress: it started (running), took a step (running, with Step: "search: …", "answer"), or
// ended (done, failed, cancelled, with the finished Cell).
type Event struct {
	Item   int    `json:"item"`
	Column int    `json:"column"`
	State  string `json:"state"`
	Step   string `json:"step,omitempty"`
	Cell   *Cell  `json:"cell,omitempty"`
}

// Check validates a request's items, targets and parallelism before anything is resolved or run; a refusal is a
// library.RequestError naming the item or target and what is wrong with it.
func Check(req Request) error {
	bad := func(format string, a ...any) error { return &library.RequestError{Err: fmt.Errorf(format, a...)} }
	if len(req.Items) == 0 {
		return bad("compare: no item to ask")
	}
	if len(req.Items) > MaxItems {
		return bad("compare: %d items, at most %d", len(req.Items), MaxItems)
	}
	for i, it := range req.Items {
		if strings.TrimSpace(it) == "" {
			return bad("compare: item %d is empty", i+1)
		}
		if !utf8.ValidString(it) {
			return bad("compare: item %d is not valid UTF-8", i+1)
		}
		if n := utf8.RuneCountInString(it); n > MaxItemRunes {
			return bad("compare: item %d is %d characters long, at most %d", i+1, n, MaxItemRunes)
		}
	}
	if len(req.Targets) < 2 {
		return bad("compare: %d document or filter to compare, want at least 2", len(req.Targets))
	}
	if len(req.Targets) > MaxTargets {
		return bad("compare: %d documents or filters, at most %d", len(req.Targets), MaxTargets)
	}
	for i, t := range req.Targets {
		doc, where := strings.TrimSpace(t.Doc), strings.TrimSpace(t.Where)
		switch {
		case doc == "" && where == "":
			return bad("compare: target %d names neither a document nor a filter", i+1)
		case doc != "" && where != "":
			return bad("compare: target %d names both a document (%q) and a filter (%q); give one", i+1, doc, where)
		}
		s := doc + where
		if !utf8.ValidString(s) {
			return bad("compare: target %d is not valid UTF-8", i+1)
		}
		if n := utf8.RuneCountInString(s); n > MaxTargetRunes {
			return bad("compare: target %d is %d characters long, at most %d", i+1, n, MaxTargetRunes)
		}
	}
	if req.Parallel < 0 || req.Parallel > MaxParallel {
		return bad("compare: parallel %d, want 1 to %d", req.Parallel, MaxParallel)
	}
	return nil
}

// Resolve checks a request and resolves its targets to columns: every document named exists (in the collection,
// when one is given), every filter reads and passes at least one document, and the run options (mode, profile,
// limits) are good. A refusal is a library.RequestError.
func Resolve(ctx context.Context, lib *library.Library, req Request) ([]Column, error) {
	if err := Check(req); err != nil {
		return nil, err
	}
	cols := make([]Column, len(req.Targets))
	for i, t := range req.Targets {
		doc, where := strings.TrimSpace(t.Doc), strings.TrimSpace(t.Where)
		scope := library.Scope{Collection: req.Collection, Where: where}
		if doc != "" {
			scope.DocumentNames = []string{doc}
		}
		ids, err := lib.Documents(ctx, scope)
		if err != nil {
			return nil, fmt.Errorf("compare: target %d (%s): %w", i+1, doc+where, err)
		}
		c := Column{Doc: doc, Where: where, Documents: ids, Label: where}
		if doc != "" {
			if len(ids) != 1 {
				return nil, fmt.Errorf("compare: target %d (%s) names %d documents", i+1, doc, len(ids))
			}
			d, err := lib.KB.Docs.Document(ctx, ids[0])
			if err != nil {
				return nil, fmt.Errorf("compare: target %d (%s): %w", i+1, doc, err)
			}
			c.Label = d.Name
		}
		cols[i] = c
	}
	// One check of the run options before any run: a bad mode or profile would fail every cell the same way.
	if _, err := lib.Prepare(ctx, library.AskRequest{Question: req.Items[0], RunOnly: true, Options: runOptions(req),
		Scope: library.Scope{Collection: req.Collection, Documents: cols[0].Documents}, Chat: req.Chat}); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	for i := range cols { // two columns of one name would read as one: number the later ones
		n := 1
		for j := 0; j < i; j++ {
			if cols[j].Label == cols[i].Label || strings.HasPrefix(cols[j].Label, cols[i].Label+" (") {
				n++
			}
		}
		if n > 1 {
			cols[i].Label += " (" + strconv.Itoa(n) + ")"
		}
	}
	return cols, nil
}

// Compare asks every item of every target, one run-only agent run per cell scoped to the target's documents, at
// most Parallel at once. A cell whose run fails holds its error and the others go on; when ctx ends, the cells not
// yet started are marked cancelled, the running ones end cancelled, and Compare returns the table so far with ctx's
// error. A request that cannot run at all (see Resolve) is an error before any run.
func Compare(ctx context.Context, lib *library.Library, req Request) (Table, error) {
	start := time.Now()
	cols, err := Resolve(ctx, lib, req)
	if err != nil {
		return Table{}, err
	}
	req.Options = runOptions(req)
	parallel := req.Parallel
	if parallel == 0 {
		parallel = DefaultParallel
	}
	log := req.Log
	if log == nil {
		log = slog.Default()
	}
	t := Pending(req.Items, cols)
	var progressMu sync.Mutex
	progress := func(ev Event) {
		if req.Progress == nil {
			return
		}
		progressMu.Lock()
		defer progressMu.Unlock()
		req.Progress(ev)
	}

	type job struct{ item, col int }
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range min(parallel, len(req.Items)*len(cols)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				c := runCell(ctx, lib, req, cols[j.col], j.item, j.col, log, progress)
				t.Cells[j.item][j.col] = c // each cell is written by the one worker that ran it
				progress(Event{Item: j.item, Column: j.col, State: c.State, Cell: &c})
			}
		}()
	}
	started := make([][]bool, len(req.Items))
feed:
	for i := range req.Items {
		started[i] = make([]bool, len(cols))
		for j := range cols {
			select {
			case jobs <- job{i, j}:
				started[i][j] = true
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	for i := range t.Cells {
		for j := range t.Cells[i] {
			if started[i] == nil || !started[i][j] {
				t.Cells[i][j].State = StateCancelled
				t.Cells[i][j].Error = "cancelled before it started"
				c := t.Cells[i][j]
				progress(Event{Item: i, Column: j, State: StateCancelled, Cell: &c})
			}
		}
	}
	t.WallMS = time.Since(start).Milliseconds()
	if err := ctx.Err(); err != nil {
		return t, fmt.Errorf("compare: %w", err)
	}
	return t, nil
}

// runOptions are the request's run options with its mode and collection.
func runOptions(req Request) library.RunOptions {
	o := req.Options
	if req.Mode != "" {
		o.Mode = req.Mode
	}
	if req.Collection != "" && o.Collection == "" {
		o.Collection = req.Collection
	}
	return o
}

// Pending is the table of items × cols before any run: every cell pending.
func Pending(items []string, cols []Column) Table {
	t := Table{Items: append([]string(nil), items...), Columns: cols, Cells: make([][]Cell, len(items))}
	for i := range t.Cells {
		t.Cells[i] = make([]Cell, len(cols))
		for j := range cols {
			t.Cells[i][j] = Cell{Item: i, Column: j, State: StatePending, Citations: []agent.Citation{}, Mark: MarkUnchecked}
		}
	}
	return t
}

func runCell(ctx context.Context, lib *library.Library, req Request, col Column, item, colIdx int, log *slog.Logger, progress func(Event)) (c Cell) {
	c = Cell{Item: item, Column: colIdx, State: StateRunning, Citations: []agent.Citation{}, Mark: MarkUnchecked}
	start := time.Now()
	defer func() { c.ElapsedMS = time.Since(start).Milliseconds() }()
	if ctx.Err() != nil {
		c.State, c.Error = StateCancelled, "cancelled before it started"
		return c
	}
	if req.Slot != nil {
		release, err := req.Slot(ctx)
		if err != nil {
			c.State, c.Error = StateFailed, fmt.Sprintf("no run slot: %v", err)
			if ctx.Err() != nil {
				c.State = StateCancelled
			}
			return c
		}
		defer release()
	}
	progress(Event{Item: item, Column: colIdx, State: StateRunning})
	var grounding *agent.GroundingInfo
	sink := func(ev agent.Event) {
		switch ev.Kind {
		case agent.KindSearch:
			progress(Event{Item: item, Column: colIdx, State: StateRunning, Step: "search: " + ev.Search.Query})
		case agent.KindCrop:
			progress(Event{Item: item, Column: colIdx, State: StateRunning, Step: fmt.Sprintf("zoom: page %d", ev.Crop.Page)})
		case agent.KindAnswer:
			progress(Event{Item: item, Column: colIdx, State: StateRunning, Step: "answer"})
		case agent.KindGrounding:
			grounding = ev.Grounding
		}
	}
	turn, err := lib.Ask(ctx, library.AskRequest{
		Question: req.Items[item], RunOnly: true, Options: req.Options, Chat: req.Chat, Log: req.Log,
		Scope: library.Scope{Collection: req.Collection, Documents: col.Documents},
	}, sink)
	c.RunID = turn.RunID
	c.Turns = turn.Result.Usage.Steps
	if a := turn.Result.Answer; a != nil {
		c.Answer, c.Forced = a.Text, a.Forced
		c.Citations = append(c.Citations, a.Citations...)
	}
	switch {
	case err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || turn.Result.Status == agent.StatusCancelled):
		c.State, c.Error = StateCancelled, err.Error()
	case err != nil:
		c.State, c.Error = StateFailed, err.Error()
		log.Warn("compare: a cell failed", "item", item+1, "target", col.Label, "err", err)
	case turn.Result.Status == agent.StatusFailed:
		c.State, c.Error = StateFailed, "the run failed"
	case turn.Result.Status == agent.StatusCancelled:
		c.State, c.Error = StateCancelled, "cancelled"
	default:
		c.State = StateDone
	}
	if grounding != nil {
		c.Mark, c.Grounding = Mark(*grounding), grounding.Summary
	}
	return c
}

// Mark is the grounding mark of an answer's grounding check.
func Mark(g agent.GroundingInfo) string {
	if len(g.Claims) == 0 {
		return MarkNoClaims
	}
	cited, mismatch := 0, false
	for _, cl := range g.Claims {
		switch cl.Status {
		case agent.GroundRegion, agent.GroundCitedPage:
			cited++
		case agent.GroundMismatch:
			mismatch = true
		}
	}
	switch {
	case mismatch:
		return MarkMismatch
	case cited == len(g.Claims):
		return MarkGrounded
	case cited == 0:
		return MarkUngrounded
	}
	return MarkPartial
}
