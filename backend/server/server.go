// Package server is Proofglass's HTTP face: VRAG's search API in both shapes (so VRAG and VRAG-RL can search a Proofglass
// knowledge base), questions answered as server-sent events, and page images and blobs by id. It binds loopback by
// default and wants a bearer token.
package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image/jpeg"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"proofglass/backend/agent"
	"proofglass/backend/buildinfo"
	"proofglass/backend/facets"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/library"
	"proofglass/backend/model"
	"proofglass/backend/pagefile"
	"proofglass/backend/search"
	"proofglass/backend/vision"
)

// Options configure a Server.
type Options struct {
	// Token is the bearer token every request but /healthz must carry; "" turns authentication off, which New allows
	// only together with a loopback address, and then only loopback Host names and same-machine origins are served.
	Token string
	// Addr is where Serve listens; it decides whether running without a token is allowed.
	Addr string
	// Chat, when set, answers /v1/ask instead of the provider profile named in the request (tests, fixed setups).
	Chat model.Chat
	Log  *slog.Logger
	// Workers bounds concurrent searches and renders (0 = the number of CPUs); Queue more requests (0 = 256) wait
	// up to QueueWait (0 = 2 min) for a slot, and the rest get 503 with Retry-After.
	Workers   int
	Queue     int
	QueueWait time.Duration
	// Runs bounds concurrent agent runs (0 = 4); there is no queue for them.
	Runs int
	// Corpus, when set, is the folder (serve --corpus-dir) whose img/{stem}_{page}.jpg files /search hands out,
	// instead of the page cache's.
	Corpus *pagefile.Corpus
}

// Server serves one library.
type Server struct {
	lib   *library.Library
	opt   Options
	log   *slog.Logger
	mux   *http.ServeMux
	rend  *kbagent.Renderer
	maker *pagefile.Maker
	work  *limiter
	runs  *limiter
}

// maxBody bounds request bodies but /search's: every other request is a small JSON object.
const maxBody = 1 << 20

// DefaultAddr is where `proofglass serve` listens: VRAG's search engine port (its vLLM server has 8001).
const DefaultAddr = "127.0.0.1:8002"

// New builds the server's handler over lib. Close stops its render workers.
func New(lib *library.Library, o Options) (*Server, error) {
	if o.Token == "" && !IsLoopback(o.Addr) {
		return nil, fmt.Errorf("refusing to serve %s without a token: only a loopback address may run without one", o.Addr)
	}
	if o.Token != "" {
		if err := CheckToken(o.Token); err != nil {
			return nil, fmt.Errorf("refusing to serve with a weak token: %w", err)
		}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Queue <= 0 {
		o.Queue = 256
	}
	if o.QueueWait <= 0 {
		o.QueueWait = 2 * time.Minute
	}
	if o.Runs <= 0 {
		o.Runs = 4
	}
	s := &Server{lib: lib, opt: o, log: o.Log, mux: http.NewServeMux(),
		rend:  &kbagent.Renderer{KB: lib.KB, PDF: lib.PDF, Password: lib.PDFPassword},
		maker: pagefile.New(lib.KB, lib.Pages, lib.PDFPassword, o.Workers),
		work:  newLimiter("searches and renders", o.Workers, o.Queue, o.QueueWait),
		runs:  newLimiter("agent runs", o.Runs, 0, time.Millisecond),
	}
	if lib.KB != nil {
		lib.KB.OnDelete(func(context.Context, []kb.Deleted) { s.rend.Forget() })
	}
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.Handle("POST /search", http.HandlerFunc(s.searchPOST))
	s.Handle("GET /search", http.HandlerFunc(s.searchGET))
	s.Handle("POST /v1/ask", http.HandlerFunc(s.ask))
	s.Handle("GET /v1/units/{id}/image", http.HandlerFunc(s.unitImage))
	s.Handle("GET /v1/blobs/{hash}", http.HandlerFunc(s.blob))
	s.Handle("GET /v1/runs/{id}/events", http.HandlerFunc(s.runEvents))
	return s, nil
}

// Handle mounts h at pattern (http.ServeMux syntax) behind the bearer token; the Host, Origin and content-type
// guards apply to every route. Other faces (such as /mcp) mount themselves here.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, s.auth(h)) }

// Close stops the page render workers.
func (s *Server) Close() error {
	s.maker.Close()
	return nil
}

// Prerender renders the pages of the named collections (all when none) into the page cache in the background of
// requests (serve --prerender), logging progress; it shares the render pool with requests.
func (s *Server) Prerender(ctx context.Context, collections []string) (pagefile.Report, error) {
	return s.maker.Warm(ctx, collections, func(p pagefile.Progress) { s.log.Info("prerender", "progress", p.String()) })
}

// HTTPServer wraps the handler with read, write and idle timeouts. The write timeout is extended by the event
// stream of /v1/ask as it writes.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 1 << 20}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w, status: 200}
	if s.guard(rw, r) {
		s.mux.ServeHTTP(rw, r)
	}
	// The query string is not logged: it may hold a user's question.
	s.log.Debug("http", "method", r.Method, "path", r.URL.Path, "status", rw.status, "ms", time.Since(start).Milliseconds())
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(c int) { w.status = c; w.ResponseWriter.WriteHeader(c) }
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (write deadlines of the event stream).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// IsLoopback reports whether addr ("host:port") names only this machine.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opt.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.opt.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="proofglass"`)
				refuse(w, http.StatusUnauthorized, "missing or wrong bearer token (see `proofglass serve token`)")
				return
			}
		}
		// Every body but /search's (which has its own, larger limit) is read whole here, so a body over the limit
		// or one that trickles in too slowly gets the same answer on every route, /mcp included.
		if r.URL.Path != "/search" && r.Body != nil && r.Body != http.NoBody {
			b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			if err != nil {
				status, msg := bodyStatus(err, maxBody)
				if msg == "" {
					msg = "reading the request body: " + err.Error()
				}
				refuse(w, status, msg)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	})
}

// public is err's text as a client may see it: paths inside the data directory (blobs, cache) are not named; the
// full error goes to the log.
func (s *Server) public(err error) string {
	msg := err.Error()
	if s.lib == nil || s.lib.Config == nil {
		return msg
	}
	if dir := s.lib.Config.DataDir; dir != "" && strings.Contains(msg, dir) {
		s.log.Warn("http", "err", err)
		msg = strings.ReplaceAll(msg, dir, "<library>")
	}
	return msg
}

func httpError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "version": buildinfo.Get().Version})
}

// renderJPEG renders region (raw pixels; zero = whole page) of a unit, scaled down to at most maxPixels.
func (s *Server) renderJPEG(ctx context.Context, unitID int64, region vision.Rect, maxPixels int) ([]byte, error) {
	id := kbagent.ID(unitID)
	info, err := s.rend.PageInfo(ctx, id)
	if err != nil {
		return nil, err
	}
	full := vision.Full(info.Size)
	if region == (vision.Rect{}) {
		region = full
	}
	region = vision.Rect{X0: max(0, region.X0), Y0: max(0, region.Y0), X1: min(full.X1, region.X1), Y1: min(full.Y1, region.Y1)}
	w, h := math.Round(region.X1-region.X0), math.Round(region.Y1-region.Y0)
	if w < 1 || h < 1 {
		return nil, badf("region lies outside the %dx%d page", info.Size.W, info.Size.H)
	}
	// Drawn at its own size, bounded in pixels and on each side (a sliver of a poster page stays encodable).
	size := vision.ScaleToWidth(w, h, int(w), maxImageSide, maxPixels)
	img, err := s.rend.Render(ctx, id, region, size)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (s *Server) unitImage(w http.ResponseWriter, r *http.Request) {
	p, err := parseImageParams(r.PathValue("id"), r.URL.Query())
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	// The database, not the renderer's memory, says whether the unit still exists.
	if _, err := s.lib.KB.Content.Unit(r.Context(), p.UnitID); err != nil {
		if errors.Is(err, kb.ErrNotFound) {
			httpError(w, http.StatusNotFound, err.Error())
		} else {
			httpError(w, http.StatusInternalServerError, s.public(err))
		}
		return
	}
	release, ok := s.work.acquire(r.Context(), 1)
	if !ok {
		busy(w, s.work)
		return
	}
	defer release()
	b, err := s.renderJPEG(r.Context(), p.UnitID, p.Region, p.MaxPixels)
	var bad badParam
	switch {
	case errors.As(err, &bad):
		httpError(w, http.StatusBadRequest, err.Error())
		return
	case errors.Is(err, kb.ErrNotFound):
		httpError(w, http.StatusNotFound, err.Error())
		return
	case err != nil:
		httpError(w, http.StatusInternalServerError, s.public(err))
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "private, no-cache")
	w.Write(b)
}

func (s *Server) blob(w http.ResponseWriter, r *http.Request) {
	h := r.PathValue("hash")
	if !kb.ValidHash(h) {
		httpError(w, http.StatusBadRequest, "blob id must be a lowercase sha256 hex digest")
		return
	}
	f, err := s.lib.KB.Blobs.Open(h)
	if err != nil {
		httpError(w, http.StatusNotFound, "no such blob")
		return
	}
	defer f.Close()
	w.Header().Set("Cache-Control", "private, max-age=31536000, immutable") // content-addressed
	http.ServeContent(w, r, "", time.Time{}, f)
}

func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		httpError(w, http.StatusBadRequest, "run id must be a number")
		return
	}
	if _, err := s.lib.KB.History.Run(r.Context(), id); err != nil {
		httpError(w, http.StatusNotFound, err.Error())
		return
	}
	ev, err := kbagent.Events(r.Context(), s.lib.KB, id)
	if err != nil {
		httpError(w, http.StatusInternalServerError, s.public(err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": ev})
}

// askRequest is the body of POST /v1/ask.
type askRequest struct {
	Question string `json:"question"`
	// Documents scopes the agent's searches to these documents (ids or file names); empty means all.
	Documents search.DocRefs `json:"documents"`
	// Where scopes them to the documents whose facets pass it ("org=acme,year=2022,kind=10-K").
	Where string `json:"where"`
	// ConversationID continues a conversation (0 starts one): a follow-up is understood from its earlier turns.
	ConversationID int64 `json:"conversation_id"`
	// Mode, collection, model, think, sampling, limits and context window, as the window sends them; absent = not set.
	library.AskOptions
}

// maxQuestionBytes bounds a question (a page of text is plenty; the agent's prompt carries it every turn).
const maxQuestionBytes = 16 << 10

// parseAsk validates a /v1/ask body before anything runs.
func parseAsk(body io.Reader, defaultMode string) (askRequest, error) {
	var req askRequest
	if err := json.NewDecoder(body).Decode(&req); err != nil {
		return req, badf("body must be JSON with a non-empty \"question\": %v", err)
	}
	if strings.TrimSpace(req.Question) == "" {
		return req, badf("\"question\" must not be empty")
	}
	if len(req.Question) > maxQuestionBytes {
		return req, badf("\"question\" is over %d bytes", maxQuestionBytes)
	}
	if req.Mode == "" {
		req.Mode = defaultMode
	}
	if !slices.Contains(agent.Modes, agent.Mode(req.Mode)) {
		return req, badf("unknown mode %q (want vrag, vimrag, vanilla or react)", truncate(req.Mode, 40))
	}
	if req.ConversationID < 0 {
		return req, badf("conversation_id must be a conversation's id, or 0 to start one")
	}
	if len(req.Where) > maxWhereBytes {
		return req, badf("\"where\" is over %d bytes", maxWhereBytes)
	}
	if _, err := facets.ParseWhere(req.Where); err != nil {
		return req, badParam{err.Error()}
	}
	return req, nil
}

// ask runs the agent and streams its events as server-sent events (event: <kind>, data: <Event JSON>). The run is
// stored like any other; a client that disconnects cancels it.
func (s *Server) ask(w http.ResponseWriter, r *http.Request) {
	req, err := parseAsk(r.Body, s.lib.Config.Current().Agent.Mode)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	q, err := s.lib.Prepare(r.Context(), library.AskRequest{Question: req.Question, ConversationID: req.ConversationID,
		Scope: library.Scope{DocumentNames: req.Documents, Where: req.Where}, Options: req.RunOptions(),
		Chat: s.opt.Chat, Log: s.log})
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, library.ErrNoCollection) {
			status = http.StatusNotFound
		}
		httpError(w, status, err.Error())
		return
	}
	release, ok := s.runs.acquire(r.Context(), 1)
	if !ok {
		busy(w, s.runs)
		return
	}
	defer release()
	flusher, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	rc := http.NewResponseController(w)
	streaming := false
	sink := func(ev agent.Event) {
		if !streaming { // the conversation is recorded before the first event: its id goes in the headers
			streaming = true
			convID := strconv.FormatInt(q.ConversationID(), 10)
			w.Header().Set("X-Proofglass-Conversation", convID)
			w.Header().Set("X-Loupe-Conversation", convID) // the old name, for one release
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusOK)
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return
		}
		_ = rc.SetWriteDeadline(time.Now().Add(time.Minute)) // a long run keeps its stream while it writes
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Kind, b)
		flusher.Flush()
	}
	t, err := q.Ask(r.Context(), sink)
	switch {
	case err != nil && !streaming && errors.Is(err, kb.ErrNotFound):
		httpError(w, http.StatusNotFound, fmt.Sprintf("conversation %d not found", req.ConversationID))
	case err != nil && !streaming:
		httpError(w, http.StatusInternalServerError, s.public(err))
	case err != nil && r.Context().Err() == nil:
		s.log.Warn("ask", "run", t.RunID, "err", err)
	}
}

// NewToken returns a random token: 32 hex digits made from 128 random bits.
func NewToken() (string, error) {
	var b [16]byte
	if _, err := randRead(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// tokenFingerprint identifies a token in logs without revealing it.
func tokenFingerprint(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:4])
}
