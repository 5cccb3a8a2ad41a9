package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"proofglass/backend/mcp"
)

// repeatReader yields n bytes of b, repeated, without holding them all.
type repeatReader struct {
	b    byte
	left int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.left)
	for i := range p[:n] {
		p[i] = r.b
	}
	r.left -= n
	return int(n), nil
}

// bigJSON is a JSON object n bytes long: {"question":"aaa…"}.
func bigJSON(n int64) io.Reader {
	head, tail := `{"question":"`, `"}`
	return io.MultiReader(strings.NewReader(head), &repeatReader{'a', n - int64(len(head)+len(tail))}, strings.NewReader(tail))
}

// TestBodyStatus: a body over the limit is 413 on every route (a 100 MB question included), malformed JSON is 400.
func TestBodyStatus(t *testing.T) {
	f := newFixture(t, nil)
	s := f.serverWithMCP(t)
	base := serveHTTP(t, s, time.Minute)
	post := func(t *testing.T, path string, body io.Reader, size int64) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, body)
		req.ContentLength = size
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+f.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for name, c := range map[string]struct {
		path string
		size int64 // of a JSON body; 0 = the malformed body
		want int
	}{
		"/v1/ask, 100 MB":      {"/v1/ask", 100 << 20, 413},
		"/v1/ask, 2 MB":        {"/v1/ask", 2 << 20, 413},
		"/search, 9 MB":        {"/search", 9 << 20, 413},
		"/mcp, 2 MB":           {"/mcp", 2 << 20, 413},
		"/v1/ask, malformed":   {"/v1/ask", 0, 400},
		"/search, malformed":   {"/search", 0, 400},
		"/mcp, malformed":      {"/mcp", 0, 400},
		"/v1/ask, no question": {"/v1/ask", -1, 400},
		"/search, wrong shape": {"/search", -1, 400},
	} {
		t.Run(name, func(t *testing.T) {
			var body io.Reader
			size := c.size
			switch c.size {
			case 0:
				body, size = strings.NewReader(`{not json`), 9
			case -1:
				body, size = strings.NewReader(`{"queries":7,"question":""}`), 27
			default:
				body = bigJSON(c.size)
			}
			resp := post(t, c.path, body, size)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.want, b)
			}
			if c.want == 413 && !strings.Contains(string(b), "request body over") {
				t.Errorf("413 without the limit: %s", b)
			}
		})
	}
}

// TestSlowBodyIs408: a body that trickles in past the read timeout is a timeout (408), not "too large".
func TestSlowBodyIs408(t *testing.T) {
	f := newFixture(t, nil)
	s := f.serverWithMCP(t)
	base := serveHTTP(t, s, 300*time.Millisecond)
	for _, path := range []string{"/v1/ask", "/search", "/mcp"} {
		t.Run(path, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			body := `{"question":"why","queries":["x"]}`
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", path, f.token, len(body))
			// One byte at a time until the server answers: it stops reading at its read timeout.
			answered := make(chan *http.Response, 1)
			go func() {
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					close(answered)
					return
				}
				answered <- resp
			}()
			for i := 0; ; i++ {
				select {
				case resp, ok := <-answered:
					if !ok {
						t.Fatal("no response")
					}
					b, _ := io.ReadAll(resp.Body)
					if resp.StatusCode != http.StatusRequestTimeout || !bytes.Contains(b, []byte("did not arrive in time")) {
						t.Fatalf("status %d, want 408: %s", resp.StatusCode, b)
					}
					return
				case <-time.After(100 * time.Millisecond):
				}
				if i < len(body)-1 { // never the last byte
					conn.Write([]byte{body[i]})
				}
			}
		})
	}
}

// serveHTTP serves s as `proofglass serve` does, with the given read timeout, and returns its base URL.
func serveHTTP(t *testing.T, s *Server, readTimeout time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	hs.ReadTimeout = readTimeout
	go hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

// serverWithMCP is the fixture's library served with its MCP endpoint, closed when the test ends.
func (f *fixture) serverWithMCP(t *testing.T) *Server {
	t.Helper()
	s, err := New(f.lib, Options{Token: f.token, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.Handle("/mcp", mcp.New(f.lib, mcp.Options{}).Handler())
	return s
}
