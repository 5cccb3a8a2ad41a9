package agent

import (
	"sync"
	"time"

	"proofglass/backend/model"
)

// Kind names an event. The string values are part of the stored-run and SSE contract: never rename them.
type Kind string

const (
	KindRunStarted Kind = "run_started" // Run
	KindRewrite    Kind = "rewrite"     // Rewrite: how a follow-up question was understood (before the first call)
	KindThinking   Kind = "thinking"    // Text: a reasoning delta
	KindContent    Kind = "content"     // Text: an output delta (tags and tool calls included, as streamed)
	KindSearch     Kind = "search"      // Search
	KindResults    Kind = "results"     // Results
	KindCrop       Kind = "crop"        // Crop
	KindMemorize   Kind = "memorize"    // Memorize
	KindGraph      Kind = "graph"       // Graph
	KindAnswer     Kind = "answer"      // Answer
	KindError      Kind = "error"       // Error
	KindDone       Kind = "done"        // Done: always the last event of a run
	KindGrounding  Kind = "grounding"   // Grounding: the answer's figures and names checked against its sources (after answer, before done)
	// KindCalculation is a calculator call (Config.Calculator): its expression, operands with sources, and result
	// or error.
	KindCalculation Kind = "calculation" // Calculation
)

// Event is one step of a run, as the UI, the SSE stream, the CLI and the run store all see it. It is self-contained
// (no pointers into agent state) and JSON-stable: field names are snake_case and only ever added to. Exactly one
// payload field is set, the one named by Kind (Text for thinking and content). Images are never inlined: an ImageRef
// names a blob the agent handed to its BlobStore.
type Event struct {
	Seq       int       `json:"seq"`        // 1-based, dense within a run
	Time      time.Time `json:"time"`       // wall clock when emitted
	ElapsedMS int64     `json:"elapsed_ms"` // since the run started
	RunID     string    `json:"run_id"`
	Kind      Kind      `json:"kind"`
	Step      int       `json:"step"` // the model call (1-based) this event belongs to; 0 before the first call

	Text     string        `json:"text,omitempty"`
	Run      *RunInfo      `json:"run,omitempty"`
	Rewrite  *RewriteInfo  `json:"rewrite,omitempty"`
	Search   *SearchInfo   `json:"search,omitempty"`
	Results  *ResultsInfo  `json:"results,omitempty"`
	Crop     *CropInfo     `json:"crop,omitempty"`
	Memorize *MemorizeInfo `json:"memorize,omitempty"`
	Graph    *GraphInfo    `json:"graph,omitempty"`
	Answer   *AnswerInfo   `json:"answer,omitempty"`
	Error    *ErrorInfo    `json:"error,omitempty"`
	Done     *DoneInfo     `json:"done,omitempty"`

	Grounding   *GroundingInfo   `json:"grounding,omitempty"`
	Calculation *CalculationInfo `json:"calculation,omitempty"`
}

// CalculationInfo is one calculator call. Exactly one of Text (with Value and Unit) and Error is set: a failed call
// is a tool error the model was told about in its next turn, and the run went on.
type CalculationInfo struct {
	ID         string        `json:"id"`                // "calc-1", "calc-2" … in the run's order
	NodeID     string        `json:"node_id,omitempty"` // vimrag: the calculation node it added to the graph
	Expression string        `json:"expression"`
	Operands   []CalcOperand `json:"operands"`
	Text       string        `json:"text,omitempty"` // the result as the calculator formats it: "42.86%"
	Value      *float64      `json:"value,omitempty"`
	Unit       string        `json:"unit,omitempty"` // "%" or "pp"; "" for a plain number
	Error      string        `json:"error,omitempty"`
	// ErrorKind names the error: too_long, malformed, syntax, unknown_function, division_by_zero, bad_figure …
	ErrorKind string `json:"error_kind,omitempty"`
}

// CalcOperand is one named figure of a calculation, as the model wrote it, with where it was read.
type CalcOperand struct {
	Name    string      `json:"name"`
	Value   string      `json:"value"`            // as written: "350.0", "18.2%", "$4.1 billion"
	Number  *float64    `json:"number,omitempty"` // the value read from it (a percentage keeps 18.2)
	Percent bool        `json:"percent,omitempty"`
	Source  *CalcSource `json:"source,omitempty"`
}

// CalcSource is where an operand was read: the page the model named, resolved to the shown unit when it can be.
type CalcSource struct {
	UnitID       string      `json:"unit_id,omitempty"`
	DocumentID   string      `json:"document_id,omitempty"`
	DocumentName string      `json:"document_name,omitempty"`
	Page         int         `json:"page,omitempty"`
	Region       *[4]float64 `json:"region,omitempty"`
	Cell         string      `json:"cell,omitempty"`
}

// ImageRef names an image stored as a blob (content-addressed: Blob is the lowercase hex SHA-256 of the bytes).
type ImageRef struct {
	Blob   string `json:"blob"`
	MIME   string `json:"mime"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int    `json:"bytes"`
}

// RunInfo opens a run.
type RunInfo struct {
	Mode       string `json:"mode"` // vrag | vimrag | vanilla | react
	Question   string `json:"question"`
	Provider   string `json:"provider,omitempty"`
	Model      string `json:"model,omitempty"`
	Collection string `json:"collection,omitempty"`
	// Conversation is the conversation the run answers a turn of (0: none): a script that started one continues it.
	Conversation int64   `json:"conversation_id,omitempty"`
	Documents    []int64 `json:"documents,omitempty"` // the search scope; empty means every document
	Think        bool    `json:"think"`
	Calculator   bool    `json:"calculator,omitempty"` // the model was offered the calculator
	MaxSteps     int     `json:"max_steps"`            // tool steps (vrag, react) or model calls (vimrag)
	TopK         int     `json:"top_k"`
	// Options are the model options every call of the run uses (sampling, thinking, num_ctx).
	Options *model.Options `json:"options,omitempty"`
	// Context is the context window planned for the run.
	Context *ContextInfo `json:"context,omitempty"`
}

// ContextInfo describes the model's context window for a run, and with an error event what went wrong with it.
type ContextInfo struct {
	NumCtx        int `json:"num_ctx,omitempty"`        // the window sent as num_ctx; 0: none sent
	Window        int `json:"window,omitempty"`         // the window the server uses as far as known (num_ctx or its default)
	ModelMax      int `json:"model_max,omitempty"`      // the model's trained context length, when the server says
	Needed        int `json:"needed,omitempty"`         // Proofglass's estimate of the run's largest prompt plus a reply
	Estimated     int `json:"estimated,omitempty"`      // error events: the prompt tokens Proofglass sent, at least
	ServerCounted int `json:"server_counted,omitempty"` // error events: the prompt tokens the server reports
}

// DocRef names a document.
type DocRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// RewriteInfo says how a question asked in a conversation was understood. When Rewritten, Question (not the asked
// one) is what the policy answers; Reason is first_turn, standalone, follow_up or off; Error is a failed rewrite,
// after which the asked question is used as is.
type RewriteInfo struct {
	Asked     string   `json:"asked"`
	Question  string   `json:"question"`
	Rewritten bool     `json:"rewritten"`
	Reason    string   `json:"reason"`
	Error     string   `json:"error,omitempty"`
	Prefer    []DocRef `json:"prefer,omitempty"` // the documents earlier answers cited: searched first
}

// SearchInfo is a query the agent sends to the knowledge base.
type SearchInfo struct {
	Query  string   `json:"query"`
	NodeID string   `json:"node_id,omitempty"` // vimrag: the search node being created
	Prefer []DocRef `json:"prefer,omitempty"`  // documents searched first (a soft scope hint), when there are any
}

// Hit is one retrieved unit.
type Hit struct {
	UnitID       string             `json:"unit_id"`
	DocumentID   string             `json:"document_id"`
	DocumentName string             `json:"document_name"`
	Kind         string             `json:"kind"` // pdf | image | video
	Page         int                `json:"page"` // 1-based ordinal of the unit in its document (page, image, clip)
	Score        float64            `json:"score"`
	Scores       map[string]float64 `json:"scores,omitempty"`     // per retriever, e.g. "bm25", "dense_text", "dense_image"
	Rerank       *float64           `json:"rerank,omitempty"`     // the reranker's relevance, when a reranker scored the hit
	FirstRank    int                `json:"first_rank,omitempty"` // 1-based rank before reranking, when a reranker ran
	StartS       float64            `json:"start_s,omitempty"`    // video clips
	EndS         float64            `json:"end_s,omitempty"`
	Thumbnail    string             `json:"thumbnail,omitempty"` // blob id of a thumbnail, when the store has one
	Label        string             `json:"label,omitempty"`     // vimrag: "Picture 1", "Video 2", "Text 1"
	Shown        bool               `json:"shown"`               // whether this hit was put in front of the model
	Skipped      string             `json:"skipped,omitempty"`   // why not shown: "already_shown", "limit"
}

// SentImage is an image put into the model's context, with the size the model's encoder sees.
type SentImage struct {
	UnitID       string   `json:"unit_id"`
	Image        ImageRef `json:"image"`
	EncoderW     int      `json:"encoder_w"` // after the server's smart_resize
	EncoderH     int      `json:"encoder_h"`
	VisualTokens int      `json:"visual_tokens"`
	TimestampS   *float64 `json:"timestamp_s,omitempty"` // video frames
}

// ResultsInfo is what a search returned and what of it the model got to see.
type ResultsInfo struct {
	Query  string      `json:"query"`
	NodeID string      `json:"node_id,omitempty"`
	Hits   []Hit       `json:"hits"`
	Sent   []SentImage `json:"sent,omitempty"`
}

// CropInfo is a zoom: the box the model asked for, where it lies on the page, and the image sent back.
type CropInfo struct {
	UnitID       string     `json:"unit_id"`
	DocumentID   string     `json:"document_id"`
	DocumentName string     `json:"document_name"`
	Page         int        `json:"page"`
	BBoxSent     [4]float64 `json:"bbox_sent"` // as the model wrote it, in the pixels of the image it saw
	FrameW       int        `json:"frame_w"`   // that image's size as the model's encoder saw it
	FrameH       int        `json:"frame_h"`
	// BBoxRaw is the padded region in raw page pixels (PageW×PageH): crop-of-crop is resolved, so it is always
	// relative to the whole page.
	BBoxRaw  [4]float64 `json:"bbox_raw"`
	PageW    int        `json:"page_w"`
	PageH    int        `json:"page_h"`
	Region   [4]float64 `json:"region"` // BBoxRaw divided by the page size: 0..1, for drawing on any rendering
	Image    SentImage  `json:"image"`
	TrueZoom bool       `json:"true_zoom"` // re-rendered from the vector page rather than cut from pixels
	OfCrop   bool       `json:"of_crop"`   // the box referred to a previous crop
}

// MemoryItem is one retrieved item the model judged in summarize_and_memorize.
type MemoryItem struct {
	InformationID string    `json:"information_id"` // "Picture 1", "Video 1", "Text 1"
	UnitID        string    `json:"unit_id,omitempty"`
	Page          int       `json:"page,omitempty"`
	DocumentName  string    `json:"document_name,omitempty"`
	Useful        bool      `json:"is_useful"`
	Priority      int       `json:"priority_score"`
	KeyTimestamps []float64 `json:"key_timestamp,omitempty"`
	Frames        []float64 `json:"frames,omitempty"` // timestamps of the video frames kept (matched to those shown)
	Kept          bool      `json:"kept"`             // stored as visual memory (useful image or video with frames)
}

// MemorizeInfo closes a vimrag search node.
type MemorizeInfo struct {
	NodeID  string       `json:"node_id"`
	Summary string       `json:"summary"`
	Items   []MemoryItem `json:"items"`
}

// GraphNode is one node of the vimrag memory graph.
type GraphNode struct {
	ID      string   `json:"id"`
	Type    string   `json:"type"` // root | search | calculation | answer
	Parents []string `json:"parents,omitempty"`
	Query   string   `json:"query,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Answer  string   `json:"answer,omitempty"`
	// Expression and Result are a calculation node's (Result is the calculator's text, e.g. "42.86%").
	Expression string `json:"expression,omitempty"`
	Result     string `json:"result,omitempty"`
}

// GraphEdge is a parent → child link.
type GraphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Budget is one memory item's share of the visual-memory pixel budget.
type Budget struct {
	NodeID        string  `json:"node_id"`
	InformationID string  `json:"information_id"`
	UnitID        string  `json:"unit_id,omitempty"`
	Energy        float64 `json:"energy"` // E
	Omega         float64 `json:"omega"`  // Ω
	Selected      bool    `json:"selected"`
	Pixels        int     `json:"pixels"` // per image (per frame for a video); 0 if not selected
	VisualTokens  int     `json:"visual_tokens"`
}

// GraphInfo is the whole graph after a change, with the current memory budgets.
type GraphInfo struct {
	Nodes       []GraphNode `json:"nodes"`
	Edges       []GraphEdge `json:"edges"`
	Budgets     []Budget    `json:"budgets,omitempty"`
	TotalPixels int         `json:"total_pixels"`
}

// Citation points an answer at its evidence.
type Citation struct {
	UnitID       string      `json:"unit_id"`
	DocumentID   string      `json:"document_id"`
	DocumentName string      `json:"document_name"`
	Page         int         `json:"page"`
	Region       *[4]float64 `json:"region,omitempty"` // 0..1 of the page, when the evidence was a crop
}

// AnswerInfo is the final answer.
type AnswerInfo struct {
	Text      string     `json:"text"`
	Citations []Citation `json:"citations"`
	Forced    bool       `json:"forced,omitempty"` // the step limit ran out without an answer (text is the fallback)
}

// Reasons of the context_* warnings (ErrorInfo.Reason), with the Context numbers each one states.
const (
	ContextSetTooSmall      = "set_too_small"     // context_capped: Needed over the NumCtx the profile sets
	ContextModelTooShort    = "model_too_short"   // context_capped: Needed over the model's ModelMax
	ContextServerTooShort   = "server_too_short"  // context_capped: Needed over the Window the server serves (vLLM)
	ContextOverTrained      = "over_trained"      // context_capped: NumCtx over the model's ModelMax
	ContextGrown            = "grown"             // context_grown: NumCtx raised for a longer prompt
	ContextNearLimit        = "near_limit"        // context_near_limit: a prompt near the Window
	ContextTruncated        = "truncated"         // context_truncated: ServerCounted of Estimated tokens read, Window
	ContextTruncatedDefault = "truncated_default" // context_truncated with no num_ctx sent: the server's own window
)

// Grounding statuses of a claim, best first. Only region and cited_page mean the claim was found where the answer
// says its evidence is.
const (
	GroundRegion    = "region"     // in a region the agent zoomed into (or a cited region)
	GroundCitedPage = "cited_page" // on a page the answer cites
	GroundElsewhere = "elsewhere"  // on another page: one the agent was shown but did not cite, or elsewhere in the document
	GroundMismatch  = "mismatch"   // the cited evidence (or a calculation) has a different value in the same context
	// GroundComputed: a derived figure that equals a calculation's result whose operands were found in the cited
	// evidence (GroundedClaim.Calculation names it).
	GroundComputed = "computed"
	GroundNotFound = "not_found" // nowhere in the document's text
)

// GroundingInfo is the grounding pass over an answer, made without a model call: each checkable claim of the answer
// (a figure, a date, a quoted phrase, a distinctive name) looked up in the text of the regions the agent zoomed into,
// the pages it cited, the pages it was shown and the rest of their documents.
type GroundingInfo struct {
	Claims []GroundedClaim `json:"claims"`
	// Figures counts the numeric claims (numbers, percentages, amounts, ranges, dates); FiguresGrounded those found in
	// the cited evidence (status region or cited_page) or computed from it (computed).
	Figures         int `json:"figures"`
	FiguresGrounded int `json:"figures_grounded"`
	// Names counts quoted phrases and distinctive names; NamesGrounded those found in the cited evidence.
	Names         int `json:"names"`
	NamesGrounded int `json:"names_grounded"`
	// Unchecked counts the claims past grounding.MaxClaims in one answer, left unchecked.
	Unchecked int `json:"unchecked,omitempty"`
	// Summary is one line for people: "3 of 4 figures found in the cited evidence", "no checkable claim".
	Summary   string `json:"summary"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// GroundedClaim is one checked claim. Start and End are byte offsets of Text in the answer's text.
type GroundedClaim struct {
	Text  string   `json:"text"`
	Kind  string   `json:"kind"` // number | percent | currency | range | date | year | quote | name
	Start int      `json:"start"`
	End   int      `json:"end"`
	Value *float64 `json:"value,omitempty"` // numbers: the value as written, scale words applied (ranges: the low end)
	// Status is one of the Ground* constants; Note says it for people ("on a cited page", "elsewhere in the
	// document (page 3)", "85 % — the cited region says 87 %").
	Status string `json:"status"`
	Note   string `json:"note"`
	// Found is where the claim was found, or for a mismatch what the cited evidence has instead.
	Found *GroundEvidence `json:"found,omitempty"`
	// Calculation is the id of the calculation (CalculationInfo.ID) a computed claim equals, or a mismatched one
	// differs from.
	Calculation string `json:"calculation,omitempty"`
}

// GroundEvidence is words on a page that a claim was compared with.
type GroundEvidence struct {
	UnitID       string       `json:"unit_id"`
	DocumentID   string       `json:"document_id"`
	DocumentName string       `json:"document_name"`
	Page         int          `json:"page"`
	Text         string       `json:"text"`            // the words as on the page
	Boxes        [][4]float64 `json:"boxes,omitempty"` // each word's box, 0..1 of the page (like CropInfo.Region)
}

// ErrorInfo is a problem. Recoverable errors (a malformed turn, a failed search) are followed by more steps;
// a fatal one by done.
type ErrorInfo struct {
	Code        string `json:"code"` // invalid_action | parse | graph | search | render | model | cancelled | internal | context_*
	Message     string `json:"message"`
	Recoverable bool   `json:"recoverable"`
	// Reason says why a model call failed, for codes model and model_unreachable: one of model.Failure* ("" when
	// not known); for the context_* codes, which warning it is: one of the Context* reasons, whose numbers are in
	// Context (the window says it in its language from them).
	Reason string `json:"reason,omitempty"`
	// Context is set for the context_* codes: context_capped, context_near_limit, context_truncated.
	Context *ContextInfo `json:"context,omitempty"`
}

// Usage sums a run's cost.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// PromptTokensSent is Proofglass's lower estimate of the prompt tokens it sent, over the agent's calls whose prompt
	// the server counted: the server's count below it means the server cut prompts.
	PromptTokensSent int   `json:"prompt_tokens_sent,omitempty"`
	Images           int   `json:"images"`                  // images sent, counted once per model call that carried them
	VisualTokens     int   `json:"visual_tokens"`           // estimated from encoder sizes, summed like Images
	Steps            int   `json:"steps"`                   // model calls
	ToolSteps        int   `json:"tool_steps"`              // searches, crops, memorize and calculator calls
	Calculations     int   `json:"calculations,omitempty"`  // calculator calls (failed ones included)
	RewriteCalls     int   `json:"rewrite_calls,omitempty"` // model calls that rewrote a follow-up (tokens included above)
	WallMS           int64 `json:"wall_ms"`
}

// Status is how a run ended.
type Status string

const (
	StatusAnswered  Status = "answered"
	StatusNoAnswer  Status = "no_answer" // step limit reached; a fallback answer may have been given
	StatusCancelled Status = "cancelled"
	StatusFailed    Status = "failed"
)

// DoneInfo closes a run.
type DoneInfo struct {
	Status Status `json:"status"`
	Usage  Usage  `json:"usage"`
}

// Sink receives events in order. It must not retain the Event's slices for mutation; events are not reused.
type Sink func(Event)

// emitter stamps events with sequence numbers and times and hands them to a sink. Safe for concurrent use.
type emitter struct {
	mu    sync.Mutex
	runID string
	start time.Time
	seq   int
	step  int
	sink  Sink
	now   func() time.Time
	trail []Event // results, crop, calculation and answer events: the evidence a Grounder checks an answer against
}

func newEmitter(runID string, sink Sink, now func() time.Time) *emitter {
	if now == nil {
		now = time.Now
	}
	if sink == nil {
		sink = func(Event) {}
	}
	return &emitter{runID: runID, start: now(), sink: sink, now: now}
}

func (e *emitter) setStep(n int) {
	e.mu.Lock()
	e.step = n
	e.mu.Unlock()
}

func (e *emitter) emit(ev Event) Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seq++
	t := e.now()
	ev.Seq = e.seq
	ev.Time = t
	ev.ElapsedMS = t.Sub(e.start).Milliseconds()
	ev.RunID = e.runID
	ev.Step = e.step
	switch ev.Kind {
	case KindResults, KindCrop, KindAnswer, KindCalculation:
		e.trail = append(e.trail, ev)
	}
	e.sink(ev)
	return ev
}

// trailCopy returns the results, crop and answer events emitted so far.
func (e *emitter) trailCopy() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.trail...)
}
