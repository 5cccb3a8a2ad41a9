package server

import (
	"context"
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Threat model (README "proofglass serve: threat model"): without a token, anything that can reach the port may use it,
// so the server must be reachable only from this machine, and a web page in the user's browser must not be able to
// use it either: DNS rebinding (a page whose name now resolves to 127.0.0.1) sends its own Host, which is refused;
// a cross-site page sends Origin or Sec-Fetch-Site, which are refused; a cross-site form or fetch without a CORS
// preflight can only send text/plain, form or multipart bodies, and every state-changing request must be JSON.

// loopbackHost reports whether a Host header names this machine: localhost, 127.0.0.0/8, ::1, or 0.0.0.0 (which
// VRAG's clients send, having been told the server listens on 0.0.0.0:8002), with any port.
func loopbackHost(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") || strings.EqualFold(h, "localhost.") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// sameMachineOrigin reports whether a browser Origin is a page served from this machine's loopback names.
func sameMachineOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return loopbackHost(u.Host)
}

// guard refuses what the threat model excludes; it returns false after answering.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) bool {
	if s.opt.Token == "" {
		if !loopbackHost(r.Host) {
			refuse(w, http.StatusForbidden, "Host "+strconv.Quote(truncate(r.Host, 100))+
				" is not this machine: without a token only localhost, 127.0.0.1, [::1] and 0.0.0.0 are served")
			return false
		}
		if o := r.Header.Get("Origin"); o != "" && !sameMachineOrigin(o) {
			refuse(w, http.StatusForbidden, "cross-origin requests are refused")
			return false
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			refuse(w, http.StatusForbidden, "cross-site requests are refused")
			return false
		}
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			refuse(w, http.StatusUnsupportedMediaType, "request body must be Content-Type: application/json")
			return false
		}
	}
	return true
}

// refuse answers an error from the guards in both of the server's error shapes: VRAG's {"detail"} and {"error"}.
func refuse(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"detail": msg, "error": msg})
}

// limiter bounds concurrent expensive work (searches, renders, agent runs): up to cap(slots) run, up to maxWait
// more wait at most wait for a slot, and the rest are told to come back (503 + Retry-After).
type limiter struct {
	name    string
	slots   chan struct{}
	waiting atomic.Int64
	maxWait int64
	wait    time.Duration
}

func newLimiter(name string, run, queue int, wait time.Duration) *limiter {
	return &limiter{name: name, slots: make(chan struct{}, max(1, run)), maxWait: int64(max(0, queue)), wait: wait}
}

func (l *limiter) acquire(ctx context.Context) (func(), bool) {
	release := func() { <-l.slots }
	select {
	case l.slots <- struct{}{}:
		return release, true
	default:
	}
	if l.waiting.Add(1) > l.maxWait {
		l.waiting.Add(-1)
		return nil, false
	}
	defer l.waiting.Add(-1)
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return release, true
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

// RetryAfterSeconds is what a saturated server asks clients to wait.
const RetryAfterSeconds = 2

func busy(w http.ResponseWriter, l *limiter) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	refuse(w, http.StatusServiceUnavailable, l.busyMessage())
}

func (l *limiter) busyMessage() string {
	return "busy: too many " + l.name + " in progress (at most " + strconv.Itoa(cap(l.slots)) + "); retry after " +
		strconv.Itoa(RetryAfterSeconds) + " s"
}

// AcquireRun takes one of the agent-run slots that /v1/ask uses, for a run another face of this server starts (MCP's
// ask tool), so every face shares one limit. Like /v1/ask it does not wait: when all are taken it says so.
func (s *Server) AcquireRun(ctx context.Context) (release func(), err error) {
	release, ok := s.runs.acquire(ctx)
	if !ok {
		return nil, errors.New(s.runs.busyMessage())
	}
	return release, nil
}
