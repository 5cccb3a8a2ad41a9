// Package transport is the HTTP layer every model adapter shares: connect/header/idle timeouts and retries with backoff.
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"proofglass/backend/buildinfo"
)

// ErrIdleTimeout is reported by a response body that received no bytes for longer than Config.IdleTimeout.
var ErrIdleTimeout = errors.New("server sent no data within the read timeout")

// Config sets the timeouts and the retry policy. Zero fields take the defaults of Defaults().
type Config struct {
	// ConnectTimeout bounds dialing (TCP + TLS).
	ConnectTimeout time.Duration
	// HeaderTimeout bounds the wait for response headers. Local servers load a model before answering, so it is long.
	HeaderTimeout time.Duration
	// IdleTimeout bounds each read of the body: the gap between two chunks of a stream.
	IdleTimeout time.Duration
	// MaxRetries is how many times a 429 or 5xx answer is retried before its body is read (-1: never).
	MaxRetries int
	// BaseBackoff is the first wait; it doubles each attempt, with jitter, up to MaxBackoff.
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	// MaxRetryAfter is the longest Retry-After the client will wait; a longer one returns the 429 to the caller.
	MaxRetryAfter time.Duration
}

// Defaults are the production settings: generous, because a local server may be loading a large model.
func Defaults() Config {
	return Config{
		ConnectTimeout: 10 * time.Second,
		HeaderTimeout:  5 * time.Minute,
		IdleTimeout:    2 * time.Minute,
		MaxRetries:     3,
		BaseBackoff:    500 * time.Millisecond,
		MaxBackoff:     20 * time.Second,
		MaxRetryAfter:  60 * time.Second,
	}
}

func (c Config) withDefaults() Config {
	d := Defaults()
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = d.ConnectTimeout
	}
	if c.HeaderTimeout == 0 {
		c.HeaderTimeout = d.HeaderTimeout
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = d.IdleTimeout
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = d.MaxRetries
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.BaseBackoff == 0 {
		c.BaseBackoff = d.BaseBackoff
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = d.MaxBackoff
	}
	if c.MaxRetryAfter == 0 {
		c.MaxRetryAfter = d.MaxRetryAfter
	}
	return c
}

// BaseURL parses a model server's base URL, trailing slashes dropped: it must be absolute (a scheme and a host).
// provider names the adapter in the error.
func BaseURL(provider, raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("%s base URL %q is not an absolute http(s) URL", provider, raw)
	}
	return u, nil
}

// ClientOr is hc where an adapter's options set one (tests), else a client that applies c.
func ClientOr(hc *http.Client, c Config) *http.Client {
	if hc != nil {
		return hc
	}
	return NewClient(c)
}

// NewClient returns an http.Client whose transport applies c. It has no overall Timeout: streams may run for minutes,
// bounded instead by the idle timeout and the caller's context.
func NewClient(c Config) *http.Client {
	c = c.withDefaults()
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: c.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   c.ConnectTimeout,
		ResponseHeaderTimeout: c.HeaderTimeout,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: &retrying{base: base, cfg: c}, CheckRedirect: sameOrigin}
}

// sameOrigin follows a redirect only within the origin (scheme, host and port) the request was sent to. A model
// server or reranker that redirects elsewhere would receive the profile's key (Go strips credentials only for another
// host name, not another port), so the redirect is refused and said.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return fmt.Errorf("stopped after %d redirects", len(via))
	}
	from := via[0].URL
	if req.URL.Scheme != from.Scheme || !strings.EqualFold(req.URL.Host, from.Host) {
		return fmt.Errorf("redirect from %s://%s to %s://%s refused: another origin (a profile's key goes only to its own server)",
			from.Scheme, from.Host, req.URL.Scheme, req.URL.Host)
	}
	return nil
}

type retrying struct {
	base http.RoundTripper
	cfg  Config
}

// retryable reports whether a status means "try again later" rather than "this request is wrong".
func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusInternalServerError ||
		code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// UserAgent names this app and its version to model servers (their logs show who called).
func UserAgent() string { return "Proofglass/" + buildinfo.Get().Version }

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	req = req.Clone(parent) // a RoundTripper must not change its caller's request
	req.Header.Set("User-Agent", UserAgent())
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			r = req.Clone(parent)
			if req.Body != nil && req.Body != http.NoBody {
				b, err := req.GetBody()
				if err != nil {
					return nil, fmt.Errorf("rewind request body for retry: %w", err)
				}
				r.Body = b
			}
		}
		ctx, cancel := context.WithCancel(parent)
		resp, err := t.base.RoundTrip(r.WithContext(ctx))
		if err != nil {
			cancel()
			return nil, err
		}
		canRewind := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
		if retryable(resp.StatusCode) && attempt < t.cfg.MaxRetries && canRewind {
			wait, ok := t.wait(attempt, resp)
			if ok {
				slog.Debug("model transport: retrying", "url", redactURL(req.URL.String()), "status", resp.StatusCode,
					"attempt", attempt+1, "wait", wait)
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
				cancel()
				timer := time.NewTimer(wait)
				select {
				case <-timer.C:
					continue
				case <-parent.Done():
					timer.Stop()
					return nil, parent.Err()
				}
			}
		}
		resp.Body = newIdleBody(resp.Body, t.cfg.IdleTimeout, cancel)
		return resp, nil
	}
}

// wait picks the delay before the next attempt: the server's Retry-After when given (and not absurd), else
// exponential backoff with ±25 % jitter.
func (t *retrying) wait(attempt int, resp *http.Response) (time.Duration, bool) {
	if ra, ok := ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		if ra > t.cfg.MaxRetryAfter {
			return 0, false
		}
		return ra, true
	}
	d := t.cfg.BaseBackoff << attempt
	if d > t.cfg.MaxBackoff || d <= 0 {
		d = t.cfg.MaxBackoff
	}
	jitter := time.Duration((rand.Float64() - 0.5) * 0.5 * float64(d))
	return d + jitter, true
}

// ParseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		d := at.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// idleBody cancels the request when one Read waits longer than d, so a server that stalls mid-stream cannot hang
// the caller; time spent by the caller between reads does not count.
type idleBody struct {
	rc     io.ReadCloser
	d      time.Duration
	cancel context.CancelFunc
	timer  *time.Timer
	fired  atomic.Bool
	once   sync.Once
}

func newIdleBody(rc io.ReadCloser, d time.Duration, cancel context.CancelFunc) *idleBody {
	b := &idleBody{rc: rc, d: d, cancel: cancel}
	if d > 0 {
		b.timer = time.AfterFunc(d, func() {
			b.fired.Store(true)
			cancel()
		})
		b.timer.Stop()
	}
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	if b.timer != nil {
		b.timer.Reset(b.d)
	}
	n, err := b.rc.Read(p)
	if b.timer != nil {
		b.timer.Stop()
	}
	if err != nil && err != io.EOF && b.fired.Load() {
		return n, fmt.Errorf("%w (%s)", ErrIdleTimeout, b.d)
	}
	return n, err
}

func (b *idleBody) Close() error {
	err := b.rc.Close()
	b.once.Do(func() {
		if b.timer != nil {
			b.timer.Stop()
		}
		b.cancel()
	})
	return err
}

// redactURL drops query strings, which some gateways use for keys, before a URL is logged.
func redactURL(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i] + "?…"
	}
	return u
}
