package instance

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// collector is a Handler that records what it was handed.
type collector struct {
	mu  sync.Mutex
	got [][]string
	err error
}

func (c *collector) handle(paths []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, paths)
	return c.err
}

func (c *collector) calls() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]string(nil), c.got...)
}

func claim(t *testing.T, dir string) (*Primary, *collector) {
	t.Helper()
	p, err := Claim(dir)
	if err != nil {
		t.Fatalf("Claim(%s): %v", dir, err)
	}
	c := &collector{}
	p.Serve(c.handle)
	t.Cleanup(func() { p.Close() })
	return p, c
}

func file(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func send(t *testing.T, dir string, paths []string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return Send(ctx, dir, paths)
}

func TestSecondLaunchHandsItsFilesToTheFirst(t *testing.T) {
	data, docs := tempDir(t), tempDir(t)
	_, c := claim(t, data)
	if _, err := Claim(data); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Claim: got %v, want ErrRunning", err)
	}
	a, b := file(t, docs, "a.pdf"), file(t, docs, "b b.png")
	if err := send(t, data, []string{a, b}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if err := send(t, data, nil); err != nil { // a bare second launch only asks for the window
		t.Fatalf("Send without files: %v", err)
	}
	got := c.calls()
	if len(got) != 2 || strings.Join(got[0], "|") != a+"|"+b || len(got[1]) != 0 {
		t.Fatalf("primary got %q, want [[%s %s] []]", got, a, b)
	}
}

func TestHandlerErrorReachesTheSender(t *testing.T) {
	data := tempDir(t)
	_, c := claim(t, data)
	c.err = errors.New("Proofglass could not start: disk full")
	err := send(t, data, []string{file(t, tempDir(t), "a.pdf")})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Send: got %v, want the primary's error", err)
	}
}

func TestPathsAreVetted(t *testing.T) {
	docs := tempDir(t)
	ok := file(t, docs, "ok.pdf")
	cases := map[string]struct {
		paths []string
		want  string // substring of the error; "" = accepted
	}{
		"absolute existing":  {[]string{ok}, ""},
		"none":               {nil, ""},
		"relative":           {[]string{"ok.pdf"}, "not an absolute clean path"},
		"unclean":            {[]string{docs + "/../" + filepath.Base(docs) + "/ok.pdf"}, "not an absolute clean path"},
		"missing names file": {[]string{ok, filepath.Join(docs, "gone.pdf")}, "gone.pdf"},
		"too many":           {make([]string, maxPaths+1), "at most"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkPaths(tc.paths)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("checkPaths: got %v, want %q", err, tc.want)
			}
		})
	}
}

// The primary re-checks what arrives on its socket: a peer speaking the protocol badly gets an error, the handler
// is never called, and the primary keeps serving.
func TestPrimaryRefusesBadRequests(t *testing.T) {
	data := tempDir(t)
	_, c := claim(t, data)
	_, tok, err := dial(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	tj, _ := json.Marshal(tok)
	missing := filepath.Join(tempDir(t), "gone.pdf")
	mj, _ := json.Marshal(missing)
	cases := map[string]struct{ line, want string }{
		"not json":      {"hello\n", "malformed request"},
		"relative path": {`{"token":` + string(tj) + `,"paths":["etc/passwd"]}` + "\n", "not an absolute clean path"},
		"missing file":  {`{"token":` + string(tj) + `,"paths":[` + string(mj) + `]}` + "\n", "gone.pdf"},
		"no newline":    {`{"paths":[]}`, "read request"},
		"too large":     {`{"paths":["` + strings.Repeat("a", maxRequestBytes) + `"]}` + "\n", "larger than"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			conn, _, err := dial(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			go func() {
				conn.Write([]byte(tc.line))
				conn.(interface{ CloseWrite() error }).CloseWrite()
			}()
			buf := make([]byte, 4096)
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			n, _ := conn.Read(buf)
			if got := string(buf[:n]); !strings.Contains(got, `"ok":false`) || !strings.Contains(got, tc.want) {
				t.Fatalf("answer %q, want an error with %q", got, tc.want)
			}
		})
	}
	if got := c.calls(); len(got) != 0 {
		t.Fatalf("handler called with %q", got)
	}
	if err := send(t, data, []string{file(t, tempDir(t), "a.pdf")}); err != nil {
		t.Fatalf("Send after bad requests: %v", err)
	}
}

func TestOnlyOneOfManySimultaneousLaunchesWins(t *testing.T) {
	data := tempDir(t)
	var wins, running atomic.Int32
	var wg sync.WaitGroup
	var mu sync.Mutex
	var held []*Primary
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := Claim(data)
			switch {
			case err == nil:
				wins.Add(1)
				mu.Lock()
				held = append(held, p)
				mu.Unlock()
			case errors.Is(err, ErrRunning):
				running.Add(1)
			default:
				t.Errorf("Claim: %v", err)
			}
		}()
	}
	wg.Wait()
	for _, p := range held {
		p.Close()
	}
	if wins.Load() != 1 || running.Load() != 15 {
		t.Fatalf("%d primaries and %d told another runs; want 1 and 15", wins.Load(), running.Load())
	}
}

func TestCloseReleasesTheDataDirectory(t *testing.T) {
	data := tempDir(t)
	p, err := Claim(data)
	if err != nil {
		t.Fatal(err)
	}
	sock := p.path
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind after Close: %v", err)
	}
	claim(t, data)
}

// A Proofglass killed outright leaves its socket file behind; the next launch must notice nobody holds the lock, take
// over, and serve on a fresh socket.
func TestKilledPrimaryIsReplaced(t *testing.T) {
	if os.Getenv("PROOFGLASS_INSTANCE_CHILD") != "" {
		return
	}
	data := tempDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperPrimary$")
	cmd.Env = append(os.Environ(), "PROOFGLASS_INSTANCE_CHILD="+data)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, _ := out.Read(buf); !strings.Contains(string(buf[:n]), "claimed") {
		cmd.Process.Kill()
		t.Fatalf("child did not claim: %q", buf[:n])
	}
	if _, err := Claim(data); !errors.Is(err, ErrRunning) {
		t.Fatalf("Claim while the child runs: got %v, want ErrRunning", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(data, endpointName)); err != nil {
		t.Fatalf("expected the killed child's socket file to remain: %v", err)
	}
	_, c := claim(t, data)
	if err := send(t, data, []string{file(t, tempDir(t), "a.pdf")}); err != nil {
		t.Fatalf("Send to the new primary: %v", err)
	}
	if len(c.calls()) != 1 {
		t.Fatalf("new primary got %q", c.calls())
	}
}

// TestHelperPrimary is the child process of TestKilledPrimaryIsReplaced: it claims the data directory and waits to
// be killed.
func TestHelperPrimary(t *testing.T) {
	data := os.Getenv("PROOFGLASS_INSTANCE_CHILD")
	if data == "" {
		t.Skip("helper process only")
	}
	p, err := Claim(data)
	if err != nil {
		t.Fatal(err)
	}
	p.Serve(func([]string) error { return nil })
	os.Stdout.WriteString("claimed\n")
	time.Sleep(time.Minute)
}

func TestSendWithoutPrimaryFailsNamingTheEndpoint(t *testing.T) {
	data := tempDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := Send(ctx, data, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(data, endpointName)) {
		t.Fatalf("Send: got %v, want an error naming the endpoint", err)
	}
}

// tempDir is t.TempDir without its failing cleanup under Wine 8 (scripts/windows-test.sh runs these tests there), which
// lacks the POSIX-semantics delete os.RemoveAll uses on Windows ("Invalid function"); what it leaves is in a throwaway
// prefix.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "proofglass-instance-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(d); err != nil {
			t.Logf("left %s: %v", d, err)
		}
	})
	return d
}
