// Package server is Loupe's HTTP face: VRAG's search API in both shapes (so VRAG and VRAG-RL can search a Loupe
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
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"loupe/backend/agent"
	"loupe/backend/buildinfo"
	"loupe/backend/config"
	"loupe/backend/kb"
	"loupe/backend/kbagent"
	"loupe/backend/library"
	"loupe/backend/model"
	"loupe/backend/search"
	"loupe/backend/vision"
)

// Options configure a Server.
type Options struct {
	// Token is the bearer token every request but /healthz must carry; "" turns authentication off, which New allows
	// only together with a loopback address.
	Token string
	// Addr is where Serve listens; it decides whether running without a token is allowed.
	Addr string
	// Chat, when set, answers /v1/ask instead of the provider profile named in the request (tests, fixed setups).
	Chat model.Chat
	Log  *slog.Logger
}

// Server serves one library.
type Server struct {
	lib  *library.Library
	opt  Options
	log  *slog.Logger
	mux  *http.ServeMux
	rend *kbagent.Renderer
}

// maxBody bounds request bodies: every request is a small JSON object.
const maxBody = 1 << 20

// New builds the server's handler over lib.
func New(lib *library.Library, o Options) (*Server, error) {
	if o.Token == "" && !IsLoopback(o.Addr) {
		return nil, fmt.Errorf("refusing to serve %s without a token: only a loopback address may run without one", o.Addr)
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	s := &Server{lib: lib, opt: o, log: o.Log, mux: http.NewServeMux(), rend: &kbagent.Renderer{KB: lib.KB, PDF: lib.PDF, Password: lib.PDFPassword}}
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("POST /search", s.auth(s.searchPOST))
	s.mux.HandleFunc("GET /search", s.auth(s.searchGET))
	s.mux.HandleFunc("POST /v1/ask", s.auth(s.ask))
	s.mux.HandleFunc("GET /v1/units/{id}/image", s.auth(s.unitImage))
	s.mux.HandleFunc("GET /v1/blobs/{hash}", s.auth(s.blob))
	s.mux.HandleFunc("GET /v1/runs/{id}/events", s.auth(s.runEvents))
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w, status: 200}
	s.mux.ServeHTTP(rw, r)
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

func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.opt.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.opt.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="loupe"`)
				httpError(w, http.StatusUnauthorized, "missing or wrong bearer token (see `loupe serve token`)")
				return
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		h(w, r)
	}
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

// searchRequest is VRAG's POST /search body, plus Loupe's optional filters.
type searchRequest struct {
	Queries    []string `json:"queries"`
	TopK       int      `json:"top_k"`
	VRAGRet    bool     `json:"vrag_ret"`
	Collection string   `json:"collection,omitempty"`
	Mode       string   `json:"mode,omitempty"`
}

// resultItem is one item of the newer API's data list: VRAG's {type, file_path} plus where it came from.
type resultItem struct {
	Type       string  `json:"type"`
	FilePath   string  `json:"file_path"`
	UnitID     int64   `json:"unit_id"`
	DocumentID int64   `json:"document_id"`
	Doc        string  `json:"doc"`
	Page       int     `json:"page"`
	Text       string  `json:"snippet,omitempty"`
	Score      float64 `json:"score"`
}

type queryResult struct {
	Score  []float64    `json:"score"`
	Indice []int64      `json:"indice"`
	Data   []resultItem `json:"data"`
}

// legacyItem is the HEAD API's shape: {"idx", "image_file"}.
type legacyItem struct {
	Idx       int    `json:"idx"`
	ImageFile string `json:"image_file"`
}

func (s *Server) searchPOST(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		httpError(w, http.StatusBadRequest, "body must be JSON like {\"queries\":[\"…\"],\"top_k\":3}: "+err.Error())
		return
	}
	if req.TopK <= 0 {
		req.TopK = 3 // the newer API's default
	}
	results, err := s.search(r.Context(), req)
	if err != nil {
		s.searchError(w, err)
		return
	}
	if req.VRAGRet {
		writeJSON(w, http.StatusOK, legacy(results))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": results})
}

// searchGET is the HEAD API: GET /search?queries=a&queries=b, ten results per query, lists of {idx, image_file}.
func (s *Server) searchGET(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := searchRequest{Queries: q["queries"], TopK: 10, Collection: q.Get("collection"), Mode: q.Get("mode")}
	if k, err := strconv.Atoi(q.Get("top_k")); err == nil && k > 0 {
		req.TopK = k
	}
	results, err := s.search(r.Context(), req)
	if err != nil {
		s.searchError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, legacy(results))
}

func (s *Server) searchError(w http.ResponseWriter, err error) {
	var bad badRequest
	switch {
	case errors.As(err, &bad):
		httpError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, kb.ErrNotFound):
		httpError(w, http.StatusNotFound, err.Error())
	default:
		s.log.Error("search", "err", err)
		httpError(w, http.StatusInternalServerError, err.Error())
	}
}

type badRequest struct{ msg string }

func (b badRequest) Error() string { return b.msg }

const maxQueries, maxTopK = 64, 100

func (s *Server) search(ctx context.Context, req searchRequest) ([]queryResult, error) {
	if len(req.Queries) == 0 {
		return nil, badRequest{"no queries: send {\"queries\":[\"…\"]} or ?queries=…"}
	}
	if len(req.Queries) > maxQueries || req.TopK > maxTopK {
		return nil, badRequest{fmt.Sprintf("at most %d queries and top_k %d per request", maxQueries, maxTopK)}
	}
	mode, err := search.ParseMode(req.Mode)
	if err != nil {
		return nil, badRequest{err.Error()}
	}
	out := make([]queryResult, 0, len(req.Queries))
	for _, text := range req.Queries {
		q := search.Query{Text: text, K: req.TopK, Mode: mode}
		if req.Collection != "" {
			q.Collections = []string{req.Collection}
		}
		res, err := s.lib.Search.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		qr := queryResult{Score: []float64{}, Indice: []int64{}, Data: []resultItem{}}
		for _, h := range res.Hits {
			path, err := s.pageFile(ctx, h.UnitID)
			if err != nil {
				return nil, fmt.Errorf("page image of %s p.%d: %w", h.Doc, h.Page, err)
			}
			qr.Score = append(qr.Score, h.Score)
			qr.Indice = append(qr.Indice, h.UnitID)
			qr.Data = append(qr.Data, resultItem{Type: "image", FilePath: path, UnitID: h.UnitID, DocumentID: h.DocumentID,
				Doc: h.Doc, Page: h.Page, Text: h.Snippet, Score: h.Score})
		}
		out = append(out, qr)
	}
	return out, nil
}

func legacy(results []queryResult) [][]legacyItem {
	out := make([][]legacyItem, len(results))
	for i, r := range results {
		out[i] = []legacyItem{}
		for j, d := range r.Data {
			out[i] = append(out[i], legacyItem{Idx: j, ImageFile: d.FilePath})
		}
	}
	return out
}

// pageFile returns a JPEG file of the unit's whole page at its raw resolution (200 DPI for PDF pages, as VRAG's
// corpus), rendering it into the cache on first use. VRAG's clients open image_file as a local path, so a path is
// what the search API returns.
func (s *Server) pageFile(ctx context.Context, unitID int64) (string, error) {
	dir := filepath.Join(s.lib.Config.CacheDir(), "pages")
	path := filepath.Join(dir, fmt.Sprintf("unit-%d.jpg", unitID))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	b, err := s.renderJPEG(ctx, unitID, vision.Rect{}, 0)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return path, config.WriteFileAtomic(path, b, 0o600)
}

// renderJPEG renders region (raw pixels; zero = whole page) of a unit, scaled down to at most maxPixels (0 = raw).
func (s *Server) renderJPEG(ctx context.Context, unitID int64, region vision.Rect, maxPixels int) ([]byte, error) {
	id := kbagent.ID(unitID)
	info, err := s.rend.PageInfo(ctx, id)
	if err != nil {
		return nil, err
	}
	size := info.Size
	if region != (vision.Rect{}) {
		size = vision.Size{W: int(region.X1 - region.X0), H: int(region.Y1 - region.Y0)}
	}
	if maxPixels > 0 && size.W*size.H > maxPixels {
		size = vision.FitPixels(size, 0, maxPixels)
	}
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
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		httpError(w, http.StatusBadRequest, "unit id must be a number")
		return
	}
	var region vision.Rect
	if v := r.URL.Query().Get("region"); v != "" {
		var x0, y0, x1, y1 float64
		if _, err := fmt.Sscanf(v, "%g,%g,%g,%g", &x0, &y0, &x1, &y1); err != nil || x1 <= x0 || y1 <= y0 || x0 < 0 || y0 < 0 {
			httpError(w, http.StatusBadRequest, "region must be x0,y0,x1,y1 in raw page pixels with x0<x1, y0<y1")
			return
		}
		region = vision.Rect{X0: x0, Y0: y0, X1: x1, Y1: y1}
	}
	maxPixels := 4 << 20
	if v := r.URL.Query().Get("max_pixels"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n < maxPixels {
			maxPixels = n
		}
	}
	b, err := s.renderJPEG(r.Context(), id, region, maxPixels)
	if errors.Is(err, kb.ErrNotFound) {
		httpError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "private, max-age=3600")
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
	if _, err := s.lib.KB.Run(r.Context(), id); err != nil {
		httpError(w, http.StatusNotFound, err.Error())
		return
	}
	ev, err := kbagent.Events(r.Context(), s.lib.KB, id)
	if err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": ev})
}

// askRequest is the body of POST /v1/ask.
type askRequest struct {
	Question   string `json:"question"`
	Mode       string `json:"mode"`
	Collection string `json:"collection"`
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	Think      bool   `json:"think"`
	// ConversationID continues a conversation (0 starts one): a follow-up is understood from its earlier turns.
	ConversationID int64 `json:"conversation_id"`
}

// ask runs the agent and streams its events as server-sent events (event: <kind>, data: <Event JSON>). The run is
// stored like any other; a client that disconnects cancels it.
func (s *Server) ask(w http.ResponseWriter, r *http.Request) {
	var req askRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || strings.TrimSpace(req.Question) == "" {
		httpError(w, http.StatusBadRequest, "body must be JSON with a non-empty \"question\"")
		return
	}
	settings := s.lib.Config.Settings.Agent
	if req.Mode == "" {
		req.Mode = settings.Mode
	}
	chat, modelName, provName := s.opt.Chat, req.Model, req.Provider
	if chat == nil {
		c, p, m, err := s.lib.Chat(req.Provider, req.Model)
		if err != nil {
			httpError(w, http.StatusBadRequest, err.Error())
			return
		}
		chat, modelName, provName = c, m, p.Name
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	if req.ConversationID < 0 {
		httpError(w, http.StatusBadRequest, "conversation_id must be a conversation's id, or 0 to start one")
		return
	}
	convID, err := s.lib.BeginTurn(r.Context(), req.ConversationID, req.Question)
	if errors.Is(err, kb.ErrNotFound) {
		httpError(w, http.StatusNotFound, fmt.Sprintf("conversation %d not found", req.ConversationID))
		return
	}
	if err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("X-Loupe-Conversation", strconv.FormatInt(convID, 10))
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	sink := func(ev agent.Event) {
		b, err := json.Marshal(ev)
		if err != nil {
			return
		}
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Kind, b)
		flusher.Flush()
	}
	cfg := agent.Config{Mode: agent.Mode(req.Mode), Provider: provName, Model: modelName, Collection: req.Collection, Think: req.Think}
	t, err := s.lib.AnswerTurn(r.Context(), convID, chat, cfg, req.Question, sink)
	if err != nil && r.Context().Err() == nil {
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
