// Package mcp serves a Proofglass library to other agents over the Model Context Protocol (the official Go SDK):
// tools to search, look at pages and their tables, ask the visual agent and list documents, and the documents as resources.
package mcp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/buildinfo"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/library"
	"proofglass/backend/model"
)

// Options configure a server.
type Options struct {
	// Chat, when set, answers ask instead of the provider profile named in the call (tests, fixed setups).
	Chat model.Chat
	Log  *slog.Logger
	// RunSlot takes one of the agent-run slots an ask call needs, or says why none is free. nil gives this server
	// its own DefaultRuns; `proofglass serve` passes its HTTP server's, so /mcp and /v1/ask share one limit.
	RunSlot func(context.Context) (release func(), err error)
}

// DefaultRuns bounds concurrent ask calls of a server with no RunSlot: /v1/ask's default.
const DefaultRuns = 4

// Server is the MCP face of one library.
type Server struct {
	lib  *library.Library
	opt  Options
	log  *slog.Logger
	rend *kbagent.Renderer
	srv  *sdk.Server
	// calls are the contexts of the HTTP requests in flight, by callHeader.
	calls sync.Map
}

// New builds the MCP server over lib.
func New(lib *library.Library, o Options) *Server {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.RunSlot == nil {
		o.RunSlot = runSlots(DefaultRuns)
	}
	s := &Server{lib: lib, opt: o, log: o.Log, rend: &kbagent.Renderer{KB: lib.KB, PDF: lib.PDF, Password: lib.PDFPassword}}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "proofglass", Title: "Proofglass", Version: buildinfo.Get().Version}, &sdk.ServerOptions{
		Instructions: "Proofglass is the user's local library of PDFs, images and videos, searched by page. Use search to find " +
			"pages (with their images), get_page to look closer at a page or a region of it, ask to have Proofglass's visual " +
			"agent answer a question with citations, compare to ask the same items of several documents side by side, and list_documents to see what the library holds.",
		Logger: slog.New(quiet{o.Log.Handler()}),
	})
	// A deleted document's units must not be drawn from the renderer's memory of them.
	lib.KB.OnDelete(func(context.Context, []kb.Deleted) { s.rend.Forget() })
	s.addTools()
	s.addResources()
	return s
}

// SDK returns the underlying SDK server.
func (s *Server) SDK() *sdk.Server { return s.srv }

// ServeStdio serves one client on stdin/stdout until it disconnects or ctx ends. A malformed line is answered with a
// JSON-RPC error and the session goes on.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.ServeLines(ctx, os.Stdin, os.Stdout)
}

// ServeLines serves one client that writes messages to in and reads them from out, one per line (MCP's stdio
// transport), until in ends or ctx does.
func (s *Server) ServeLines(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	return s.srv.Run(ctx, &lineTransport{in: in, out: out, log: s.log})
}

// Handler serves the streamable HTTP transport. Authentication is the caller's (proofglass serve puts its bearer token
// in front); the SDK itself refuses a non-local Host header on a loopback connection (DNS rebinding).
func (s *Server) Handler() http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
		Logger:              slog.New(quiet{s.log.Handler()}),
		MaxRequestBodyBytes: maxRequestBytes,
		// Sessions live in memory: one a client forgot is closed after a while.
		SessionTimeout: 30 * time.Minute,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The SDK runs a call in its session, not in the HTTP request that carried it, so a client that leaves would
		// not stop its run: the request is tagged, and the tool ends its run when that request ends first.
		id := rand.Text()
		r.Header.Set(callHeader, id)
		s.calls.Store(id, r.Context())
		defer s.calls.Delete(id)
		h.ServeHTTP(w, r)
	})
}

// callHeader tags each HTTP request with the key of its context in Server.calls (a client's own value is replaced).
const callHeader = "X-Proofglass-Call"

// callContext is ctx, also ended when the HTTP request that carried the call has ended (its client left); over stdio
// it is ctx.
func (s *Server) callContext(ctx context.Context, extra *sdk.RequestExtra) (context.Context, context.CancelFunc) {
	if extra == nil || extra.Header.Get(callHeader) == "" {
		return context.WithCancel(ctx)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	v, ok := s.calls.Load(extra.Header.Get(callHeader))
	if !ok { // the request ended before the call started
		cancel(errClientLeft)
		return ctx, func() {}
	}
	stop := context.AfterFunc(v.(context.Context), func() { cancel(errClientLeft) })
	return ctx, func() { stop(); cancel(nil) }
}

var errClientLeft = errors.New("the MCP client left")

// public is err as a client may see it: the data directory (blob and cache paths) is not named, and the full
// error goes to the log.
func (s *Server) public(err error) error {
	dir := s.lib.Config.DataDir
	if err == nil || dir == "" || !strings.Contains(err.Error(), dir) {
		return err
	}
	s.log.Warn("mcp", "err", err)
	return errors.New(strings.ReplaceAll(err.Error(), dir, "<library>"))
}

// runSlots is a limit of n concurrent runs that refuses, rather than queues, the next.
func runSlots(n int) func(context.Context) (func(), error) {
	slots := make(chan struct{}, n)
	return func(context.Context) (func(), error) {
		select {
		case slots <- struct{}{}:
			return func() { <-slots }, nil
		default:
			return nil, fmt.Errorf("busy: too many agent runs in progress (at most %d); retry after a few seconds", n)
		}
	}
}

// maxRequestBytes bounds an HTTP request: every call is a small JSON object.
const maxRequestBytes = 1 << 20

// quiet passes on the SDK's warnings and errors only: it logs every session's start and end at info level.
type quiet struct{ slog.Handler }

func (q quiet) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && q.Handler.Enabled(ctx, l)
}
func (q quiet) WithAttrs(a []slog.Attr) slog.Handler { return quiet{q.Handler.WithAttrs(a)} }
func (q quiet) WithGroup(n string) slog.Handler      { return quiet{q.Handler.WithGroup(n)} }
