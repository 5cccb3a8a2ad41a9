//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"proofglass/backend/kb"
)

// proc is a real proofglass process: the test binary run as the CLI.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string // stdout, line by line
	errb  bytes.Buffer
	done  chan error
}

func startProofglass(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, cmd: exec.Command(os.Args[0], args...), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), asProofglassEnv+"=1")
	p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.errb}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// waitFor waits until some stdout line satisfies ok, or the process ends, or the (generous) deadline passes.
func (p *proc) waitFor(what string, ok func(line string) bool) {
	p.t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	seen := 0
	for {
		p.mu.Lock()
		lines := p.lines[seen:]
		seen = len(p.lines)
		p.mu.Unlock()
		for _, l := range lines {
			if ok(l) {
				return
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			p.t.Fatalf("proofglass ended (%v) before %s:\n%s", err, what, p.stderr())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s after 120 s:\n%s", what, p.stderr())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *proc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.errb.String()
}

// kill9 ends the process with SIGKILL and waits for it.
func (p *proc) kill9() {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		p.t.Fatal(err)
	}
	<-p.done
}

// signal sends sig and reports whether the process ended within bound (a generous one: this checks that it ends,
// not how fast).
func (p *proc) signalAndWait(sig syscall.Signal, bound time.Duration) (error, bool) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	select {
	case err := <-p.done:
		return err, true
	case <-time.After(bound):
		return nil, false
	}
}

// stageCount counts the ingest progress lines of a stage.
func stageIs(stage string) func(string) bool {
	return func(l string) bool {
		return strings.Contains(l, `"type":"progress"`) && strings.Contains(l, `"stage":"`+stage+`"`)
	}
}

// idleWith matches a watch status line of a folder synced with n files.
func idleWith(n int) func(string) bool {
	return func(l string) bool {
		var s struct {
			Type, State    string
			Pending, Files int
		}
		return json.Unmarshal([]byte(l), &s) == nil && s.Type == "watch" && s.State == "watching" && s.Pending == 0 && s.Files == n
	}
}

func noisePNG(t *testing.T, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	img := image.NewRGBA(image.Rect(0, 0, 20, 20))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
	}
	img.Set(0, 0, color.RGBA{255, 255, 255, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// libraryState opens the stopped library: its documents by name (all must be ready), and what the folder's rows own.
func libraryState(t *testing.T, data string) (docs map[string]kb.Document, unowned []string, pending int) {
	t.Helper()
	k := openData(t, data)
	defer k.Close()
	ds, err := k.Docs.Documents(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	owned := map[int64]bool{}
	fs, _ := k.Watch.WatchedFolders(context.Background())
	for _, f := range fs {
		rows, _ := k.Watch.WatchedFiles(context.Background(), f.ID)
		for _, r := range rows {
			if r.Owned {
				owned[r.DocumentID] = true
			}
		}
	}
	docs = map[string]kb.Document{}
	for _, d := range ds {
		docs[d.Name] = d
		if !owned[d.ID] {
			unowned = append(unowned, d.Name)
		}
	}
	ids, _ := k.Docs.PendingDeletions(context.Background())
	return docs, unowned, len(ids)
}

// sameAsFolder says how the library differs from the folder, file by file ("" when equal and all ready).
func sameAsFolder(t *testing.T, data, dir string) string {
	t.Helper()
	docs, unowned, _ := libraryState(t, data)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var diff []string
	files := map[string]bool{}
	for _, e := range entries {
		files[e.Name()] = true
		d, ok := docs[e.Name()]
		switch {
		case !ok:
			diff = append(diff, "missing "+e.Name())
		case d.Status != kb.StatusReady:
			diff = append(diff, e.Name()+" is "+d.Status)
		}
	}
	for name := range docs {
		if !files[name] {
			diff = append(diff, "extra "+name)
		}
	}
	if len(unowned) > 0 {
		slices.Sort(unowned)
		diff = append(diff, "owned by no file: "+strings.Join(unowned, ", "))
	}
	slices.Sort(diff)
	return strings.Join(diff, "; ")
}

// blobsLeft counts the blob files in the data directory.
func blobsLeft(t *testing.T, data string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(data, "blobs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) != "tmp" {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestWatchSurvivesKill9: a real watcher process killed with SIGKILL at several points — three times during its first
// pass, then three times while the folder is being emptied — and started again: after each restart the library
// equals the folder file by file, every document owned by its file. Then `watch remove` after a kill during a first
// pass takes every document along, and what a kill can leave in the blob store (a file stored, its row not yet
// written) is reported by doctor once old enough and removed by doctor --fix.
func TestWatchSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills real processes")
	}
	data, dir := t.TempDir(), t.TempDir()
	const n = 120
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d.png", i)), noisePNG(t, uint64(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Minute)
	for i := range n {
		_ = os.Chtimes(filepath.Join(dir, fmt.Sprintf("p%03d.png", i)), old, old) // settled
	}
	if _, err := run(t, data, "watch", "add", dir, "--collection", "c"); err != nil {
		t.Fatal(err)
	}
	watch := func() *proc { return startProofglass(t, "--data", data, "watch", "--json", "--no-ocr") }

	// Killed during the first pass, after 5, 30 and 60 more files were done.
	for _, after := range []int{5, 30, 60} {
		p := watch()
		count := 0
		p.waitFor(fmt.Sprintf("%d ingested", after), func(l string) bool {
			if stageIs("done")(l) {
				count++
			}
			return count >= after
		})
		p.kill9()
		docs, unowned, _ := libraryState(t, data)
		t.Logf("killed after %d more ingested: %d documents, %d owned by no file", after, len(docs), len(unowned))
		if len(unowned) > 0 {
			t.Errorf("documents created before the kill are owned by no file: %v", unowned)
		}
	}
	p := watch()
	p.waitFor("the folder synced", idleWith(n))
	p.kill9()
	if diff := sameAsFolder(t, data, dir); diff != "" {
		t.Fatalf("after kills during the first pass and a restart, the library differs from the folder: %s", diff)
	}

	// Emptied, and killed while the deletions run (at increasing delays after the pass starts).
	for i := range n {
		if err := os.Remove(filepath.Join(dir, fmt.Sprintf("p%03d.png", i))); err != nil {
			t.Fatal(err)
		}
	}
	for _, delay := range []time.Duration{0, 30 * time.Millisecond, 120 * time.Millisecond} {
		p := watch()
		p.waitFor("a pass", func(l string) bool { return strings.Contains(l, `"state":"scanning"`) })
		time.Sleep(delay)
		p.kill9()
		docs, _, pending := libraryState(t, data)
		t.Logf("killed %s into the emptying pass: %d documents left, %d journalled for deletion", delay, len(docs), pending)
	}
	p = watch()
	p.waitFor("the folder synced", idleWith(0))
	p.kill9()
	if diff := sameAsFolder(t, data, dir); diff != "" {
		t.Fatalf("after kills while emptying and a restart, the library differs from the folder: %s", diff)
	}
	if _, _, pending := libraryState(t, data); pending != 0 {
		t.Errorf("%d deletions still journalled", pending)
	}
	if left := blobsLeft(t, data); len(left) != 0 {
		t.Errorf("%d blobs left after the folder was emptied: %v", len(left), left)
	}

	// Refilled, killed during the first pass, then unwatched: nothing of the folder stays.
	for i := range 40 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("q%03d.png", i)), noisePNG(t, uint64(1000+i)), 0o644); err != nil {
			t.Fatal(err)
		}
		_ = os.Chtimes(filepath.Join(dir, fmt.Sprintf("q%03d.png", i)), old, old)
	}
	p = watch()
	count := 0
	p.waitFor("10 ingested", func(l string) bool {
		if stageIs("done")(l) {
			count++
		}
		return count >= 10
	})
	p.kill9()
	out, err := run(t, data, "watch", "remove", dir, "--collection", "c")
	if err != nil {
		t.Fatal(err)
	}
	if docs, _, _ := libraryState(t, data); len(docs) != 0 {
		t.Errorf("watch remove after a kill during the first pass left %d documents (%s)", len(docs), strings.TrimSpace(out))
	}
	// A kill can leave blobs stored for rows never written: doctor reports them once older than its grace period
	// (an ingest may be writing them), and --fix removes them.
	left := blobsLeft(t, data)
	t.Logf("%d blob(s) left by the kill", len(left))
	if len(left) > 0 {
		past := time.Now().Add(-2 * time.Hour)
		for _, b := range left {
			_ = os.Chtimes(b, past, past)
		}
		report, _ := run(t, data, "doctor", "--offline", "--json")
		if !strings.Contains(report, fmt.Sprintf("%d unreferenced blob(s)", len(left))) {
			t.Errorf("doctor does not report the %d orphan blob(s):\n%s", len(left), report)
		}
		if _, err := run(t, data, "doctor", "--offline", "--fix"); err != nil {
			t.Logf("doctor --fix: %v", err) // other checks (tools) may fail here; the blobs are what matter
		}
		if left := blobsLeft(t, data); len(left) != 0 {
			t.Errorf("doctor --fix left %d blobs", len(left))
		}
	}
}

// TestAddRefusesNonRegularFiles: a named pipe and endless devices are refused at once, naming the file and the reason,
// instead of blocking in open or hashing for ever.
func TestAddRefusesNonRegularFiles(t *testing.T) {
	data := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "pipe.pdf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, path := range []string{fifo, "/dev/zero", "/dev/urandom"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			p := startProofglass(t, "--data", data, "add", "--no-ocr", path)
			select {
			case err := <-p.done:
				if err == nil {
					t.Fatal("add succeeded")
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("add %s still running after 60 s", path)
			}
			p.mu.Lock()
			out := strings.Join(p.lines, "\n")
			p.mu.Unlock()
			if !strings.Contains(out, path) || !strings.Contains(out, "not a regular file") {
				t.Errorf("add %s printed %q, want the file and the reason", path, out)
			}
		})
	}
}

// TestSignalsStopCommands: SIGINT or SIGTERM ends a command blocked in a long operation — a foreground watcher, an
// MCP server waiting on its input — promptly (the bound is generous: this asserts that it ends).
func TestSignalsStopCommands(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	if _, err := run(t, data, "watch", "add", dir); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run("watch "+sig.String(), func(t *testing.T) {
			p := startProofglass(t, "--data", data, "watch", "--json", "--no-ocr")
			p.waitFor("watching", idleWith(0))
			err, ok := p.signalAndWait(sig, 30*time.Second)
			if !ok {
				t.Fatalf("watch still running 30 s after %v", sig)
			}
			if err != nil { // killed by the signal, or failed: not a stop through the command's context
				t.Errorf("watch after %v: %v, want a clean exit\n%s", sig, err, p.stderr())
			}
		})
	}
	// Blocked where the context does not reach (reading stdin), the command is ended a second after the signal.
	blocked := map[string][]string{
		"mcp SIGTERM":                {"--data", data, "mcp"},
		"serve --token-stdin SIGINT": {"--data", data, "serve", "--token-stdin", "--addr", "127.0.0.1:0"},
	}
	for name, args := range blocked {
		t.Run(name, func(t *testing.T) { signalBlocked(t, args, strings.HasSuffix(name, "SIGINT")) })
	}
}

// signalBlocked starts proofglass with args and its input held open, and checks that a signal ends it.
func signalBlocked(t *testing.T, args []string, interrupt bool) {
	sig := syscall.SIGTERM
	if interrupt {
		sig = syscall.SIGINT
	}
	{
		p := &proc{t: t, cmd: exec.Command(os.Args[0], args...), done: make(chan error, 1)}
		p.cmd.Env = append(os.Environ(), asProofglassEnv+"=1")
		stdin, err := p.cmd.StdinPipe() // held open: the server waits for input for ever
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.errb}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { p.done <- p.cmd.Wait() }()
		t.Cleanup(func() { _ = p.cmd.Process.Kill() })
		time.Sleep(500 * time.Millisecond) // started, waiting on its input
		if _, ok := p.signalAndWait(sig, 30*time.Second); !ok {
			t.Fatalf("%v still running 30 s after %v:\n%s", args, sig, p.stderr())
		}
		// Handled (a clean exit, or 130 when a second passed first), not killed by the signal.
		if code := p.cmd.ProcessState.ExitCode(); code != 0 && code != 130 {
			t.Errorf("%v after %v: exit %d (%v)\n%s", args, sig, code, p.cmd.ProcessState, p.stderr())
		}
	}
}
