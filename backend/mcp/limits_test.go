package mcp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/fixture"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/server"
)

// connTracker is an HTTP client transport that can drop every connection it opened: a client that leaves.
type connTracker struct {
	mu    sync.Mutex
	conns []net.Conn
	rt    *http.Transport
	token string
}

func newConnTracker(token string) *connTracker {
	c := &connTracker{token: token}
	c.rt = &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			c.mu.Lock()
			c.conns = append(c.conns, conn)
			c.mu.Unlock()
		}
		return conn, err
	}}
	return c
}

func (c *connTracker) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+c.token)
	return c.rt.RoundTrip(r)
}

func (c *connTracker) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
}

// TestAskSharesRunLimitsAndStopsWhenTheClientLeaves: ten concurrent ask calls over HTTP against a model that never
// answers: four run (the slots /v1/ask uses, which then answers 503 too), six are told the server is busy; when the
// four clients cancel or drop their connections, their runs stop, are stored as cancelled and free their slots.
func TestAskSharesRunLimitsAndStopsWhenTheClientLeaves(t *testing.T) {
	l := newLibrary(t)
	silent := &modeltest.Silent{}
	model := httptest.NewServer(silent)
	defer model.Close()
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("PROOFGLASS_MODEL_LOOKUP_TIMEOUT", "10m") // the runs wait on the model until their clients leave
	ctx := context.Background()
	lib := l.open(t)
	const token = "limits-test-token-93b1"
	srv, err := server.New(lib, server.Options{Token: token, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Handle("/mcp", New(lib, Options{RunSlot: srv.AcquireRun}).Handler())
	hs := httptest.NewServer(srv)
	defer hs.Close()

	type caller struct {
		cs     *sdk.ClientSession
		conns  *connTracker
		cancel context.CancelFunc
		res    chan string // "" when the call was refused as busy, else how it ended
	}
	var callers []*caller
	for range 10 {
		ct := newConnTracker(token)
		client := sdk.NewClient(&sdk.Implementation{Name: "limits-test", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp",
			HTTPClient: &http.Client{Transport: ct}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		callers = append(callers, &caller{cs: cs, conns: ct, res: make(chan string, 1)})
	}
	for _, c := range callers {
		cctx, cancel := context.WithCancel(ctx)
		c.cancel = cancel
		go func() {
			res, err := c.cs.CallTool(cctx, &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{
				"question": "How much blood was lost?", "mode": "vanilla", "provider": "openai", "model": "silent"}})
			switch {
			case err != nil:
				c.res <- "left: " + err.Error()
			case res.IsError && strings.Contains(res.Content[0].(*sdk.TextContent).Text, "busy: too many agent runs in progress (at most 4)"):
				c.res <- ""
			default:
				c.res <- "result: " + res.Content[0].(*sdk.TextContent).Text
			}
		}()
	}
	// Six calls are refused at once; four hold a run each, waiting on the model.
	refused := map[*caller]bool{}
	waitFor(t, "6 calls refused as busy", func() bool {
		for _, c := range callers {
			select {
			case r := <-c.res:
				if r != "" {
					t.Fatalf("a call ended before its client left: %s", r)
				}
				refused[c] = true
			default:
			}
		}
		return len(refused) >= 6
	})
	var running []*caller
	for _, c := range callers {
		if !refused[c] {
			running = append(running, c)
		}
	}
	waitFor(t, "the model server to hold 4 look-ups", func() bool { return silent.Held() == 4 })
	for _, c := range running {
		select {
		case r := <-c.res:
			t.Fatalf("a running call ended before its client left: %q", r)
		default:
		}
	}
	// /v1/ask shares the limit: it is busy too.
	req, _ := http.NewRequest("POST", hs.URL+"/v1/ask", strings.NewReader(`{"question":"q","mode":"vanilla","provider":"openai","model":"silent"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/v1/ask while MCP holds every slot: %s, want 503", resp.Status)
	}

	// Two clients cancel their calls; two drop their connections.
	running[0].cancel()
	running[1].cancel()
	running[2].conns.drop()
	running[3].conns.drop()
	for _, c := range running[:2] {
		select {
		case r := <-c.res:
			if !strings.HasPrefix(r, "left: ") {
				t.Errorf("a cancelled call ended with %q", r)
			}
		case <-time.After(time.Minute):
			t.Fatal("a cancelled call did not return")
		}
	}
	waitFor(t, "the runs to stop waiting on the model", func() bool { return silent.Held() == 0 })
	waitFor(t, "the four runs to be stored as cancelled", func() bool {
		runs, err := lib.KB.History.Runs(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range runs {
			if r.Status == "cancelled" && !r.FinishedAt.IsZero() {
				n++
			}
		}
		return n == 4 && len(runs) == 4
	})
	// Every slot is free again.
	for i := range 4 {
		release, err := srv.AcquireRun(ctx)
		if err != nil {
			t.Fatalf("slot %d after the clients left: %v", i+1, err)
		}
		defer release()
	}
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	fixture.WaitFor(t, time.Minute, cond, what)
}
