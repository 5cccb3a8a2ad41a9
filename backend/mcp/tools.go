package mcp

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"errors"
	"proofglass/backend/agent"
	"proofglass/backend/facets"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/library"
	"proofglass/backend/search"
	"proofglass/backend/vision"
)

// Bounds on what a call may ask for: the HTTP API's limits, and images small enough for a client's context.
const (
	maxK            = 50
	maxImages       = 10
	defaultImages   = 5
	maxQueryRunes   = 2000
	maxQuestion     = 4000
	maxPageWidth    = 2048
	maxPagePixels   = 4 << 20
	maxPageSide     = 4096      // pixels of either side of a rendered image
	maxImageBytes   = 600 << 10 // one JPEG in a result
	maxPageText     = 20000     // characters of a page's text returned by get_page
	maxListDocument = 1000
)

func (s *Server) addTools() {
	sdk.AddTool(s.srv, &sdk.Tool{Name: "search", Title: "Search the library",
		Description: "Find the pages (PDF pages, images, video clips) of the user's library that match a query. Returns " +
			"each hit's document, page, score and text snippet, with the images of the first hits.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, s.search)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "get_page", Title: "Look at a page",
		Description: "Render a page (by unit_id, or document_id and page) or a region of it at the width asked, with " +
			"its text. Regions are fractions of the page: [x0, y0, x1, y1] from the top-left corner.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, s.getPage)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "ask", Title: "Ask Proofglass's visual agent",
		Description: "Have Proofglass's agent answer a question from the library: it searches, looks at pages and zooms into " +
			"regions, then answers with citations (document, page, region). Slow: progress is reported as it works."},
		s.ask)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "compare", Title: "Compare documents side by side",
		Description: "Ask the same items (questions, figures to find) of two to eight documents (document_ids) or facet " +
			"filters (where, e.g. year=2022 and year=2023): one agent run per item and document, in parallel. Returns a " +
			"table with a row per item and a column per document: each cell's answer, citations (document, page, " +
			"region) and grounding mark; a cell whose run failed holds its error. Slow: progress is reported per cell."},
		s.compare)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "list_documents", Title: "List documents",
		Description: "List the documents of the library (or of one collection) with their kind, pages, status and facets " +
			"(title, org, kind, year, quarter, date: what the where filter of search and ask matches).",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, s.listDocuments)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "get_table", Title: "Get a table as data",
		Description: "Read a table from a page of a document: its caption, column headers and every cell with its row " +
			"label, column header, numeric value and box (PDF points). Tables are numbered from 1, top to bottom; without " +
			"a table number the page's first is returned, with how many the page has.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, s.getTable)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "summarize_document", Title: "A document at a glance",
		Description: "Outline a document — its sections, tables (rows × columns) and figure captions with their pages, and " +
			"key figures from its first pages — read from its text layer, and (unless outline_only) a short summary by " +
			"the chat model, each sentence and figure citing its page, every figure checked against that page: status " +
			"cited_page (found there, with its region), mismatch (the page says another value), elsewhere or not_found. " +
			"The summary is stored; asking again returns it at once unless refresh."}, s.summarizeDocument)
}

// SearchIn is the search tool's input.
type SearchIn struct {
	Query       string  `json:"query" jsonschema:"what to look for"`
	K           int     `json:"k,omitempty" jsonschema:"hits wanted, 1 to 50 (default 5)"`
	Collection  string  `json:"collection,omitempty" jsonschema:"search this collection only (by name)"`
	DocumentIDs []int64 `json:"document_ids,omitempty" jsonschema:"search these documents only"`
	Where       string  `json:"where,omitempty" jsonschema:"search only documents whose facets match, e.g. org=acme,year=2022,kind=10-K (facets: title, org, kind, year, quarter, period, date; a|b for either; year=2019..2022)"`
	Mode        string  `json:"mode,omitempty" jsonschema:"hybrid (default), bm25 or dense"`
	Images      *int    `json:"images,omitempty" jsonschema:"attach the page images of the first N hits, 0 to 10 (default 5)"`
	ImageWidth  int     `json:"image_width,omitempty" jsonschema:"width of attached page images in pixels, 128 to 1024 (default 768)"`
}

// Hit is one search result.
type Hit struct {
	UnitID     int64   `json:"unit_id"`
	DocumentID int64   `json:"document_id"`
	Document   string  `json:"document"`
	Page       int     `json:"page"`
	Kind       string  `json:"kind"` // page, image or clip
	Score      float64 `json:"score"`
	Snippet    string  `json:"snippet,omitempty"`
	// Rerank and FirstRank are set when a reranker scored the hit: its relevance and the first stage's rank.
	Rerank    *float64 `json:"rerank,omitempty"`
	FirstRank int      `json:"first_rank,omitempty"`
}

// SearchOut is the search tool's structured result.
type SearchOut struct {
	Hits  []Hit    `json:"hits"`
	Notes []string `json:"notes,omitempty"`
	// Rerank says what the reranker did, when one is configured: a failed one leaves the first stage's order.
	Rerank *search.RerankInfo `json:"rerank,omitempty"`
}

func (s *Server) search(ctx context.Context, _ *sdk.CallToolRequest, in SearchIn) (*sdk.CallToolResult, SearchOut, error) {
	var out SearchOut
	q := strings.TrimSpace(in.Query)
	switch {
	case q == "":
		return nil, out, errors.New("query is empty")
	case utf8.RuneCountInString(q) > maxQueryRunes:
		return nil, out, fmt.Errorf("query is longer than %d characters", maxQueryRunes)
	case in.K < 0 || in.K > maxK:
		return nil, out, fmt.Errorf("k must be between 1 and %d", maxK)
	case in.Images != nil && (*in.Images < 0 || *in.Images > maxImages):
		return nil, out, fmt.Errorf("images must be between 0 and %d", maxImages)
	case in.ImageWidth != 0 && (in.ImageWidth < 128 || in.ImageWidth > 1024):
		return nil, out, errors.New("image_width must be between 128 and 1024")
	}
	if err := scopeLimits(in.Where, in.DocumentIDs); err != nil {
		return nil, out, err
	}
	res, err := s.lib.Search(ctx, library.SearchRequest{Text: q, K: or(in.K, 5), Mode: search.Mode(in.Mode),
		Scope: library.Scope{Collection: in.Collection, Documents: in.DocumentIDs, Where: in.Where}})
	if err != nil {
		return nil, out, err
	}
	images := defaultImages
	if in.Images != nil {
		images = *in.Images
	}
	width := or(in.ImageWidth, 768)
	out = SearchOut{Hits: []Hit{}, Notes: res.Notes, Rerank: res.Rerank}
	content := []sdk.Content{}
	if r := res.Rerank; r != nil && !r.Reranked {
		content = append(content, &sdk.TextContent{Text: "The reranker failed, so these results are in first-stage order: " + r.Error})
	}
	for i, h := range res.Hits {
		hit := Hit{UnitID: h.UnitID, DocumentID: h.DocumentID, Document: h.Doc, Page: h.Page, Kind: h.UnitKind, Score: h.Score,
			Snippet: h.Snippet, Rerank: h.Rerank, FirstRank: h.FirstRank}
		out.Hits = append(out.Hits, hit)
		score := fmt.Sprintf("score %.4f", h.Score)
		if h.Rerank != nil {
			score = fmt.Sprintf("rerank %.4f, first-stage rank %d", *h.Rerank, h.FirstRank)
		}
		content = append(content, &sdk.TextContent{Text: fmt.Sprintf("%d. %s, %s %d (unit %d, %s)\n%s", i+1, h.Doc,
			h.UnitKind, h.Page, h.UnitID, score, h.Snippet)})
		if i < images {
			jpg, _, err := s.render(ctx, h.UnitID, nil, width)
			if err != nil {
				content = append(content, &sdk.TextContent{Text: fmt.Sprintf("(no image of unit %d: %v)", h.UnitID, err)})
				continue
			}
			content = append(content, &sdk.ImageContent{Data: jpg, MIMEType: "image/jpeg"})
		}
	}
	if len(res.Hits) == 0 {
		content = append(content, &sdk.TextContent{Text: "No page matches."})
	}
	return &sdk.CallToolResult{Content: content}, out, nil
}

// scope restricts a query to a collection and documents, checking that they exist.
// scopeLimits bounds what a tool's scope may name, before anything is read.
func scopeLimits(where string, docs []int64) error {
	if len(where) > 1<<10 {
		return errors.New("where is over 1024 bytes")
	}
	if len(docs) > 100 {
		return errors.New("at most 100 document_ids")
	}
	return nil
}

// PageIn is get_page's input.
type PageIn struct {
	UnitID     int64     `json:"unit_id,omitempty" jsonschema:"the page (unit) id from search"`
	DocumentID int64     `json:"document_id,omitempty" jsonschema:"with page: the document"`
	Page       int       `json:"page,omitempty" jsonschema:"with document_id: the 1-based page (image 1, or clip number)"`
	Region     []float64 `json:"region,omitempty" jsonschema:"[x0, y0, x1, y1] as fractions 0..1 of the page width and height; omit for the whole page"`
	Width      int       `json:"width,omitempty" jsonschema:"width of the image in pixels, 64 to 2048 (default 1024)"`
	Text       *bool     `json:"text,omitempty" jsonschema:"include the page's text (default true)"`
}

// PageOut describes the image get_page returns.
type PageOut struct {
	UnitID     int64      `json:"unit_id"`
	DocumentID int64      `json:"document_id"`
	Document   string     `json:"document"`
	Page       int        `json:"page"`
	Width      int        `json:"width"`  // of the returned image
	Height     int        `json:"height"` // of the returned image
	Region     [4]float64 `json:"region"` // fractions of the page
	Text       string     `json:"text,omitempty"`
	Truncated  bool       `json:"text_truncated,omitempty"`
}

func (s *Server) getPage(ctx context.Context, _ *sdk.CallToolRequest, in PageIn) (*sdk.CallToolResult, PageOut, error) {
	var out PageOut
	if in.Width != 0 && (in.Width < 64 || in.Width > maxPageWidth) {
		return nil, out, fmt.Errorf("width must be between 64 and %d", maxPageWidth)
	}
	region := [4]float64{0, 0, 1, 1}
	if in.Region != nil {
		r := in.Region
		if len(r) != 4 || r[0] < 0 || r[1] < 0 || r[2] > 1 || r[3] > 1 || r[2] <= r[0] || r[3] <= r[1] {
			return nil, out, errors.New("region must be [x0, y0, x1, y1] with 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1")
		}
		copy(region[:], r)
	}
	unitID, err := s.unitOf(ctx, in)
	if err != nil {
		return nil, out, err
	}
	u, err := s.lib.KB.Content.Unit(ctx, unitID)
	if err != nil {
		return nil, out, fmt.Errorf("no unit %d", unitID)
	}
	d, err := s.lib.KB.Docs.Document(ctx, u.DocumentID)
	if err != nil {
		return nil, out, err
	}
	jpg, size, err := s.render(ctx, unitID, &region, or(in.Width, 1024))
	if err != nil {
		return nil, out, err
	}
	out = PageOut{UnitID: unitID, DocumentID: d.ID, Document: d.Name, Page: u.Ordinal, Width: size.W, Height: size.H, Region: region}
	desc := fmt.Sprintf("%s, %s %d (unit %d): %d×%d px", d.Name, u.Kind, u.Ordinal, unitID, size.W, size.H)
	if region != [4]float64{0, 0, 1, 1} {
		desc += fmt.Sprintf(" of the region [%.3g, %.3g, %.3g, %.3g]", region[0], region[1], region[2], region[3])
	}
	content := []sdk.Content{&sdk.TextContent{Text: desc}, &sdk.ImageContent{Data: jpg, MIMEType: "image/jpeg"}}
	if in.Text == nil || *in.Text {
		out.Text = u.Text
		if utf8.RuneCountInString(out.Text) > maxPageText {
			out.Text, out.Truncated = string([]rune(out.Text)[:maxPageText]), true
		}
		if out.Text != "" {
			content = append(content, &sdk.TextContent{Text: out.Text})
		}
	}
	return &sdk.CallToolResult{Content: content}, out, nil
}

// unitOf resolves get_page's unit.
func (s *Server) unitOf(ctx context.Context, in PageIn) (int64, error) {
	switch {
	case in.UnitID > 0 && in.DocumentID == 0:
		return in.UnitID, nil
	case in.UnitID == 0 && in.DocumentID > 0 && in.Page > 0:
		id, err := s.lib.KB.Content.UnitID(ctx, in.DocumentID, in.Page)
		if errors.Is(err, kb.ErrNotFound) {
			return 0, fmt.Errorf("document %d has no page %d", in.DocumentID, in.Page)
		}
		return id, err
	}
	return 0, errors.New("give unit_id, or document_id and page (positive numbers)")
}

// render draws a unit (or a region of it, in fractions) about width pixels wide, bounded in pixels and bytes, as JPEG.
func (s *Server) render(ctx context.Context, unitID int64, region *[4]float64, width int) ([]byte, vision.Size, error) {
	id := kbagent.ID(unitID)
	info, err := s.rend.PageInfo(ctx, id)
	if err != nil {
		if errors.Is(err, kb.ErrNotFound) {
			return nil, vision.Size{}, fmt.Errorf("no unit %d", unitID)
		}
		return nil, vision.Size{}, s.public(err)
	}
	var raw vision.Rect
	rw, rh := float64(info.Size.W), float64(info.Size.H)
	if region != nil && *region != [4]float64{0, 0, 1, 1} {
		raw = vision.Rect{X0: region[0] * rw, Y0: region[1] * rh, X1: region[2] * rw, Y1: region[3] * rh}
		rw, rh = raw.X1-raw.X0, raw.Y1-raw.Y0
	}
	if rw < 1 || rh < 1 {
		return nil, vision.Size{}, errors.New("region is smaller than a pixel")
	}
	// A sliver of a page asked at a large width would be a huge strip: neither side may pass maxPageSide.
	size := vision.ScaleToWidth(rw, rh, width, maxPageSide, maxPagePixels)
	img, err := s.rend.Render(ctx, id, raw, size)
	if err != nil {
		return nil, vision.Size{}, s.public(fmt.Errorf("render unit %d: %w", unitID, err))
	}
	b, got, err := vision.EncodeJPEGUnder(img, maxImageBytes, 85)
	if err != nil {
		return nil, vision.Size{}, s.public(fmt.Errorf("encode unit %d at %dx%d: %w", unitID, size.W, size.H, err))
	}
	return b, got, nil
}

// AskIn is the ask tool's input.
type AskIn struct {
	Question    string  `json:"question" jsonschema:"the question"`
	Mode        string  `json:"mode,omitempty" jsonschema:"agent: vrag (default from settings), vimrag, vanilla or react"`
	Collection  string  `json:"collection,omitempty" jsonschema:"answer from this collection only"`
	DocumentIDs []int64 `json:"document_ids,omitempty" jsonschema:"answer from these documents only"`
	Where       string  `json:"where,omitempty" jsonschema:"answer only from documents whose facets match, e.g. org=acme,year=2022,kind=10-K"`
	Provider    string  `json:"provider,omitempty" jsonschema:"model provider profile (default from settings)"`
	Model       string  `json:"model,omitempty" jsonschema:"chat model (default: the provider's)"`
	Calculator  bool    `json:"calculator,omitempty" jsonschema:"offer the agent a calculator for arithmetic over the figures it reads (off by default)"`
}

// AskOut is the ask tool's structured result.
type AskOut struct {
	Answer    string           `json:"answer"`
	Citations []agent.Citation `json:"citations"`
	RunID     int64            `json:"run_id"`
	Status    string           `json:"status"`
	Forced    bool             `json:"forced,omitempty"`
	// Grounding is the check of the answer's figures and names against the pages it cites (none when the run made
	// no grounding pass).
	Grounding *agent.GroundingInfo `json:"grounding,omitempty"`
	// Calculations are the run's calculator calls, failed ones included (none without the calculator).
	Calculations []agent.CalculationInfo `json:"calculations,omitempty"`
}

func (s *Server) ask(ctx context.Context, req *sdk.CallToolRequest, in AskIn) (*sdk.CallToolResult, AskOut, error) {
	var out AskOut
	question := strings.TrimSpace(in.Question)
	if question == "" {
		return nil, out, errors.New("question is empty")
	}
	if utf8.RuneCountInString(question) > maxQuestion {
		return nil, out, fmt.Errorf("question is longer than %d characters", maxQuestion)
	}
	if err := scopeLimits(in.Where, in.DocumentIDs); err != nil {
		return nil, out, err
	}
	// Settings' defaults and limits apply as in every face; the run is stored without a conversation.
	q, err := s.lib.Prepare(ctx, library.AskRequest{Question: question, RunOnly: true,
		Scope:   library.Scope{Collection: in.Collection, Documents: in.DocumentIDs, Where: in.Where},
		Options: library.RunOptions{Mode: in.Mode, Provider: in.Provider, Model: in.Model, Calculator: in.Calculator},
		Chat:    s.opt.Chat, Log: s.log})
	if err != nil {
		return nil, out, err
	}
	// The run ends when its caller cancels the call or leaves, and takes a slot of the limit /v1/ask shares.
	ctx, cancel := s.callContext(ctx, req.Extra)
	defer cancel()
	release, err := s.opt.RunSlot(ctx)
	if err != nil {
		return nil, out, err
	}
	defer release()
	token := req.Params.GetProgressToken()
	steps := 0
	var grounding *agent.GroundingInfo
	var calcs []agent.CalculationInfo
	sink := func(ev agent.Event) {
		if ev.Kind == agent.KindGrounding {
			grounding = ev.Grounding
		}
		if ev.Kind == agent.KindCalculation && ev.Calculation != nil {
			calcs = append(calcs, *ev.Calculation)
		}
		msg := progressMessage(ev)
		if token == nil || msg == "" {
			return
		}
		steps++
		if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(steps), Message: msg}); err != nil {
			s.log.Debug("mcp: progress", "err", err)
		}
	}
	t, err := q.Ask(ctx, sink)
	runID, res := t.RunID, t.Result
	if err != nil && ctx.Err() != nil {
		return nil, out, fmt.Errorf("ask (run %d) stopped: %w", runID, context.Cause(ctx))
	}
	if err != nil {
		return nil, out, fmt.Errorf("ask (run %d): %w", runID, err)
	}
	out = AskOut{RunID: runID, Status: string(res.Status), Citations: []agent.Citation{}}
	if res.Answer == nil {
		return nil, out, fmt.Errorf("the agent gave no answer (run %d, %s)", runID, res.Status)
	}
	out.Answer, out.Forced = res.Answer.Text, res.Answer.Forced
	out.Citations = append(out.Citations, res.Answer.Citations...)
	out.Grounding = grounding
	out.Calculations = calcs
	text := out.Answer
	if len(out.Citations) > 0 {
		text += "\n\nSources:"
		for _, c := range out.Citations {
			text += fmt.Sprintf("\n- %s, page %d (unit %s)", c.DocumentName, c.Page, c.UnitID)
			if c.Region != nil {
				text += fmt.Sprintf(", region [%.3g, %.3g, %.3g, %.3g]", c.Region[0], c.Region[1], c.Region[2], c.Region[3])
			}
		}
	}
	if len(calcs) > 0 {
		text += "\n\nCalculations:"
		for _, c := range calcs {
			if c.Error != "" {
				text += fmt.Sprintf("\n- %s: %s → error (%s): %s", c.ID, c.Expression, c.ErrorKind, c.Error)
				continue
			}
			var ops []string
			for _, op := range c.Operands {
				o := op.Name + " = " + op.Value
				if op.Source != nil && op.Source.Page > 0 {
					o += fmt.Sprintf(" (page %d)", op.Source.Page)
				}
				ops = append(ops, o)
			}
			text += fmt.Sprintf("\n- %s: %s = %s, with %s", c.ID, c.Expression, c.Text, strings.Join(ops, ", "))
		}
	}
	if g := out.Grounding; g != nil {
		text += "\n\nGrounding: " + g.Summary
		for _, c := range g.Claims {
			if c.Status != agent.GroundRegion && c.Status != agent.GroundCitedPage {
				text += fmt.Sprintf("\n- %s: %s (%s)", c.Text, c.Note, c.Status)
			}
		}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// progressMessage says what a step of the agent did; token deltas say nothing (there are thousands).
func progressMessage(ev agent.Event) string {
	switch ev.Kind {
	case agent.KindRunStarted:
		return "started (" + ev.Run.Mode + ")"
	case agent.KindSearch:
		return "searching: " + ev.Search.Query
	case agent.KindResults:
		return fmt.Sprintf("found %d pages", len(ev.Results.Hits))
	case agent.KindCrop:
		return "zooming into a region"
	case agent.KindMemorize:
		return "memorizing"
	case agent.KindCalculation:
		if ev.Calculation.Error != "" {
			return "calculator error: " + ev.Calculation.Error
		}
		return "calculated: " + ev.Calculation.Expression + " = " + ev.Calculation.Text
	case agent.KindAnswer:
		return "answered"
	case agent.KindGrounding:
		return "checked: " + ev.Grounding.Summary
	case agent.KindError:
		return "error: " + ev.Error.Message
	case agent.KindDone:
		return "done"
	}
	return ""
}

// ListIn is list_documents' input.
type ListIn struct {
	Collection string `json:"collection,omitempty" jsonschema:"only this collection"`
	Status     string `json:"status,omitempty" jsonschema:"only documents with this status: queued, ingesting, ready or failed"`
	Limit      int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 1000 (default 100)"`
	Offset     int    `json:"offset,omitempty" jsonschema:"skip this many (for paging)"`
}

// Document is one listed document.
type Document struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Collection string `json:"collection"`
	Kind       string `json:"kind"`
	Pages      int    `json:"pages"`
	Status     string `json:"status"`
	Error      string `json:"error,omitempty"`
	URI        string `json:"uri"`
	// Facets are what the document is, as extracted or set by the user: what where filters match.
	Facets *facets.Facets `json:"facets,omitempty"`
}

// ListOut is list_documents' structured result.
type ListOut struct {
	Documents []Document `json:"documents"`
	Total     int        `json:"total"` // matching documents, before limit and offset
}

func (s *Server) listDocuments(ctx context.Context, _ *sdk.CallToolRequest, in ListIn) (*sdk.CallToolResult, ListOut, error) {
	var out ListOut
	if in.Limit < 0 || in.Limit > maxListDocument || in.Offset < 0 {
		return nil, out, fmt.Errorf("limit must be between 1 and %d, offset at least 0", maxListDocument)
	}
	switch in.Status {
	case "", kb.StatusQueued, kb.StatusIngesting, kb.StatusReady, kb.StatusFailed:
	default:
		return nil, out, fmt.Errorf("unknown status %q (want queued, ingesting, ready or failed)", in.Status)
	}
	docs, err := s.documents(ctx, in.Collection, in.Status)
	if err != nil {
		return nil, out, err
	}
	out.Total = len(docs)
	docs = docs[min(in.Offset, len(docs)):]
	docs = docs[:min(or(in.Limit, 100), len(docs))]
	if err := s.addFacets(ctx, docs); err != nil {
		return nil, out, err
	}
	out.Documents = docs
	var b strings.Builder
	fmt.Fprintf(&b, "%d documents", out.Total)
	if len(docs) < out.Total {
		fmt.Fprintf(&b, " (%d from %d)", len(docs), in.Offset+1)
	}
	for _, d := range docs {
		fmt.Fprintf(&b, "\n%d\t%s\t%s\t%s, %d pages\t%s", d.ID, d.Name, d.Collection, d.Kind, d.Pages, d.Status)
		if d.Facets != nil {
			for _, n := range []string{facets.Org, facets.Kind, facets.Year, facets.Quarter} {
				if v := d.Facets.Get(n); v != "" {
					fmt.Fprintf(&b, "\t%s=%s", n, v)
				}
			}
		}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, out, nil
}

// addFacets fills in the listed documents' facets (one query for the page of documents).
func (s *Server) addFacets(ctx context.Context, docs []Document) error {
	ids := make([]int64, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	rows, err := s.lib.KB.Facets.DocumentFacets(ctx, ids)
	if err != nil {
		return err
	}
	for i := range docs {
		if r := rows[docs[i].ID]; len(r) > 0 {
			f := facets.FromRows(r)
			docs[i].Facets = &f
		}
	}
	return nil
}

// documents lists documents, newest first, of a collection ("" = all) and a status ("" = any).
func (s *Server) documents(ctx context.Context, collection, status string) ([]Document, error) {
	cs, err := s.lib.KB.Docs.Collections(ctx)
	if err != nil {
		return nil, err
	}
	names := map[int64]string{}
	var collID int64
	for _, c := range cs {
		names[c.ID] = c.Name
		if c.Name == collection {
			collID = c.ID
		}
	}
	if collection != "" && collID == 0 {
		return nil, fmt.Errorf("no collection named %q", collection)
	}
	ds, err := s.lib.KB.Docs.Documents(ctx, collID)
	if err != nil {
		return nil, err
	}
	out := []Document{}
	for _, d := range ds {
		if status != "" && d.Status != status {
			continue
		}
		out = append(out, Document{ID: d.ID, Name: d.Name, Collection: names[d.CollectionID], Kind: d.Kind, Pages: d.Pages,
			Status: d.Status, Error: d.Error, URI: documentURI(d.ID)})
	}
	return out, nil
}

func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
