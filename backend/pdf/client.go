package pdf

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Options configures a Client.
type Options struct {
	// Command is the worker executable; empty means the companion worker of this build when one is installed
	// (Companion), else this process's own executable (os.Executable), which must dispatch Args to ServeWorker
	// (Proofglass's CLI does, through the hidden "pdf-worker" command).
	Command string
	// Args are the worker's arguments; nil means []string{WorkerCommand}.
	Args []string
	// Env is added to this process's environment for the worker.
	Env []string
	// Limits applies to every document the worker opens.
	Limits Limits
	// Timeout bounds each operation (open, one page, one render); the worker is killed when it is exceeded.
	// 0 means DefaultTimeout.
	Timeout time.Duration
	Logger  *slog.Logger
}

// DefaultTimeout is the per-operation limit when Options.Timeout is 0.
const DefaultTimeout = 60 * time.Second

// WorkerError reports that the worker died or was killed while handling one document.
type WorkerError struct {
	Path  string
	Op    string
	Page  int // 0-based; -1 when not a page operation
	Cause string
}

func (e *WorkerError) Error() string {
	if e.Page >= 0 {
		return fmt.Sprintf("pdf %s: page %d: %s: %s", e.Path, e.Page+1, e.Op, e.Cause)
	}
	return fmt.Sprintf("pdf %s: %s: %s", e.Path, e.Op, e.Cause)
}

// Client runs MuPDF in a child process and talks to it over stdin/stdout. One operation runs at a time per
// Client; use several Clients for parallel extraction. When the worker crashes or times out, the operation in
// flight fails with a *WorkerError, documents opened on that worker become unusable, and the next Open starts a
// fresh worker. Client is safe for concurrent use.
type Client struct {
	opts Options
	mu   sync.Mutex
	w    *worker
	id   uint64
}

// NewClient returns a Client; the worker starts on the first Open.
func NewClient(o Options) *Client {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Args == nil {
		o.Args = []string{WorkerCommand}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Client{opts: o}
}

type frameResult struct {
	resp    response
	payload []byte
	err     error
}

type worker struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	bw      *bufio.Writer
	results chan frameResult
	exited  chan struct{} // closed after cmd.Wait returns
	waitErr error
	stderr  *tailBuffer
	dead    error // set once the worker cannot be used any more
}

func (c *Client) start() (*worker, error) {
	exe := c.opts.Command
	if exe == "" {
		exe = Companion()
	}
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("pdf worker: find own executable: %w", err)
		}
	}
	cmd := exec.Command(exe, c.opts.Args...)
	cmd.Env = append(os.Environ(), c.opts.Env...)
	tail := &tailBuffer{max: 8 << 10}
	cmd.Stderr = tail
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("pdf worker: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("pdf worker: %w", err)
	}
	if err := startWorker(cmd); err != nil {
		return nil, fmt.Errorf("pdf worker: start %s: %w", exe, err)
	}
	// Rendering is batch work: it yields the CPU to the window and to interactive requests (a 2,415-page ingest
	// otherwise stretches UI frames past 100 ms on two cores).
	lowerPriority(cmd.Process.Pid)
	w := &worker{cmd: cmd, stdin: stdin, bw: bufio.NewWriter(stdin), results: make(chan frameResult, 1),
		exited: make(chan struct{}), stderr: tail}
	go func() {
		br := bufio.NewReaderSize(stdout, 256<<10)
		for {
			var fr frameResult
			fr.payload, fr.err = readFrame(br, &fr.resp)
			w.results <- fr
			if fr.err != nil {
				return
			}
		}
	}()
	go func() {
		w.waitErr = cmd.Wait()
		close(w.exited)
	}()
	c.opts.Logger.Debug("pdf worker started", "pid", cmd.Process.Pid)
	return w, nil
}

// kill ends the worker and waits for it, so no zombie or stray process is left.
func (w *worker) kill() {
	_ = w.cmd.Process.Kill()
	<-w.exited
}

// call sends one request and waits for its answer, the worker's death, the timeout or ctx.
func (c *Client) call(ctx context.Context, w *worker, req request, path string) (response, []byte, error) {
	fail := func(op, cause string) error {
		page := -1
		if req.Op == "page" || req.Op == "render" {
			page = req.Page
			if req.Render != nil {
				page = req.Render.Page
			}
		}
		return &WorkerError{Path: path, Op: op, Page: page, Cause: cause}
	}
	if w.dead != nil {
		return response{}, nil, fail(req.Op, w.dead.Error())
	}
	c.id++
	req.ID = c.id
	if err := writeFrame(w.bw, req, nil); err == nil {
		err = w.bw.Flush()
	}
	timer := time.NewTimer(c.opts.Timeout)
	defer timer.Stop()
	select {
	case fr := <-w.results:
		if fr.err != nil {
			// The worker closed its output: it crashed. Report how it ended.
			select {
			case <-w.exited:
			case <-time.After(5 * time.Second):
				w.kill()
			}
			cause := "worker crashed"
			if w.waitErr != nil {
				cause += " (" + w.waitErr.Error() + ")"
			}
			if t := w.stderr.String(); t != "" {
				cause += ": " + t
			}
			w.dead = errors.New(cause)
			return response{}, nil, fail(req.Op, cause)
		}
		if fr.resp.ID != req.ID {
			w.kill()
			w.dead = fmt.Errorf("worker protocol out of step (got answer %d for request %d)", fr.resp.ID, req.ID)
			return response{}, nil, fail(req.Op, w.dead.Error())
		}
		if fr.resp.Err != nil {
			return fr.resp, nil, fr.resp.Err.err()
		}
		return fr.resp, fr.payload, nil
	case <-timer.C:
		w.kill()
		w.dead = fmt.Errorf("worker killed after the %s time limit", c.opts.Timeout)
		return response{}, nil, fail(req.Op, w.dead.Error())
	case <-ctx.Done():
		w.kill()
		w.dead = fmt.Errorf("worker stopped: %w", ctx.Err())
		return response{}, nil, fmt.Errorf("pdf %s: %s: %w", path, req.Op, ctx.Err())
	}
}

// Open opens path in the worker, starting (or restarting) the worker if needed. password is used only when the
// document needs one; a document that needs one without getting it fails with a *PasswordError.
func (c *Client) Open(ctx context.Context, path, password string) (*Doc, error) {
	return c.OpenAs(ctx, path, password, "")
}

// OpenAs opens path as Open does, as a document of type mime: a PDF when "" or application/pdf, else one of the
// other paged types ingest records (imagefile's DocumentMIME: Word, EPUB, HTML, Markdown, CSV, ...), which the
// worker must be told since the blob store's files have no extension.
func (c *Client) OpenAs(ctx context.Context, path, password, mime string) (*Doc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w == nil || c.w.dead != nil {
		if c.w != nil {
			c.w.kill()
		}
		w, err := c.start()
		if err != nil {
			return nil, err
		}
		c.w = w
	}
	lim := c.opts.Limits
	resp, _, err := c.call(ctx, c.w, request{Op: "open", Path: path, Password: password, MIME: mime, Limits: &lim}, path)
	if err != nil {
		return nil, err
	}
	d := &Doc{c: c, w: c.w, handle: resp.Doc, Path: path}
	if resp.Info != nil {
		d.Info = *resp.Info
	}
	return d, nil
}

// Close stops the worker.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w == nil {
		return nil
	}
	w := c.w
	c.w = nil
	_ = w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.kill()
	}
	return nil
}

// Doc is a document open in a Client's worker.
type Doc struct {
	c      *Client
	w      *worker
	handle int
	Path   string
	Info   Info
}

func (d *Doc) usable() error {
	if d.c.w != d.w {
		cause := "worker was restarted"
		if d.w.dead != nil {
			cause = d.w.dead.Error()
		}
		return &WorkerError{Path: d.Path, Op: "use", Page: -1, Cause: cause}
	}
	return nil
}

// Pages is the page count.
func (d *Doc) Pages() int { return d.Info.Pages }

// Page extracts page i (0-based): size, text with word boxes, and a thumbnail when o.ThumbSize > 0.
func (d *Doc) Page(ctx context.Context, i int, o PageOptions) (*Page, error) {
	d.c.mu.Lock()
	defer d.c.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	resp, payload, err := d.c.call(ctx, d.w, request{Op: "page", Doc: d.handle, Page: i, PageOpts: &o}, d.Path)
	if err != nil {
		return nil, err
	}
	if resp.Page == nil {
		return nil, fmt.Errorf("pdf %s: page %d: empty answer from worker", d.Path, i+1)
	}
	nw, nt := resp.WordsLen, resp.TextLen
	if nw < 0 || nt < 0 || nw > len(payload) || nt > len(payload)-nw {
		return nil, fmt.Errorf("pdf %s: page %d: %d bytes of words and %d of text in a %d-byte answer", d.Path, i+1, nw, nt, len(payload))
	}
	resp.Page.wire = payload[:nw:nw]
	if !o.RawWords {
		if resp.Page.Words, err = readWords(resp.Page.wire); err != nil {
			return nil, fmt.Errorf("pdf %s: page %d: %w", d.Path, i+1, err)
		}
	}
	resp.Page.Text = string(payload[nw : nw+nt])
	if len(payload) > nw+nt {
		resp.Page.Thumb = payload[nw+nt:]
	}
	return resp.Page, nil
}

// Render renders a page or a region of it.
func (d *Doc) Render(ctx context.Context, r RenderRequest) (*Rendered, error) {
	d.c.mu.Lock()
	defer d.c.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	resp, payload, err := d.c.call(ctx, d.w, request{Op: "render", Doc: d.handle, Page: r.Page, Render: &r}, d.Path)
	if err != nil {
		return nil, err
	}
	if resp.Rendered == nil {
		return nil, fmt.Errorf("pdf %s: page %d: empty answer from worker", d.Path, r.Page+1)
	}
	resp.Rendered.Data = payload
	return resp.Rendered, nil
}

// Refresh re-reads Info from the worker (its warning count grows as damaged pages are repaired).
func (d *Doc) Refresh(ctx context.Context) (Info, error) {
	d.c.mu.Lock()
	defer d.c.mu.Unlock()
	if err := d.usable(); err != nil {
		return d.Info, err
	}
	resp, _, err := d.c.call(ctx, d.w, request{Op: "info", Doc: d.handle}, d.Path)
	if err != nil {
		return d.Info, err
	}
	if resp.Info != nil {
		d.Info = *resp.Info
	}
	return d.Info, nil
}

// Close releases the document in the worker. It is a no-op after the worker died.
func (d *Doc) Close() error {
	d.c.mu.Lock()
	defer d.c.mu.Unlock()
	if d.usable() != nil {
		return nil
	}
	_, _, err := d.c.call(context.Background(), d.w, request{Op: "close", Doc: d.handle}, d.Path)
	return err
}

// tailBuffer keeps the last max bytes written to it (the worker's stderr, for crash reports).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(trimSpaceBytes(t.b))
}

func trimSpaceBytes(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func asWorkerError(err error, target **WorkerError) bool { return errors.As(err, target) }
