// Package instance keeps one Proofglass window per data directory: the first launch listens on a unix socket in the data
// directory, and a later launch hands it the files it was asked to open instead of opening a second window.
package instance

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ErrRunning means another Proofglass holds the data directory; Send hands it the files.
var ErrRunning = errors.New("another Proofglass is running on this data directory")

// Socket and lock file names inside the data directory.
const (
	socketName = "proofglass.sock"
	lockName   = "proofglass.lock"
)

// Limits on what a peer may send: a request is a single JSON line.
const (
	maxRequestBytes = 4 << 20
	maxPaths        = 10000
)

// request is what a later launch sends, one JSON line; response is the primary's one-line answer.
type request struct {
	Paths []string `json:"paths"`
}

type response struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Handler receives the absolute paths a later launch asked to open (none: it only asked for the window). An error is
// reported back to that launch.
type Handler func(paths []string) error

// Primary is the first launch's hold on a data directory: the lock and the socket later launches connect to.
type Primary struct {
	lock *os.File
	ln   net.Listener
	path string
	wg   sync.WaitGroup
	once sync.Once
}

// Claim makes this process the data directory's primary instance. It returns ErrRunning when another process holds
// it; any other error means single-instance handling is unavailable (the caller may carry on without it).
func Claim(dataDir string) (*Primary, error) {
	lock, err := os.OpenFile(filepath.Join(dataDir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file in %s: %w", dataDir, err)
	}
	held, err := tryLock(lock)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	if !held {
		lock.Close()
		return nil, ErrRunning
	}
	path, err := socketPath(dataDir)
	if err != nil {
		lock.Close()
		return nil, err
	}
	// Holding the lock proves any socket file left here belongs to a process that has exited.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		lock.Close()
		return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		lock.Close()
		return nil, fmt.Errorf("restrict %s: %w", path, err)
	}
	return &Primary{lock: lock, ln: ln, path: path}, nil
}

// Serve answers later launches in the background until Close, passing each one's paths to h.
func (p *Primary) Serve(h Handler) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := p.ln.Accept()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					slog.Error("single instance: accept", "err", err)
				}
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				serveConn(c, h)
			}()
		}
	}()
}

// Close stops listening, removes the socket and releases the data directory.
func (p *Primary) Close() error {
	var err error
	p.once.Do(func() {
		err = p.ln.Close() // a unix listener removes its socket file on Close
		p.wg.Wait()
		if e := p.lock.Close(); err == nil {
			err = e
		}
	})
	return err
}

func serveConn(c net.Conn, h Handler) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	reply := func(err error) {
		r := response{OK: err == nil}
		if err != nil {
			r.Error = err.Error()
		}
		b, _ := json.Marshal(r)
		_, _ = c.Write(append(b, '\n'))
	}
	line, err := bufio.NewReaderSize(io.LimitReader(c, maxRequestBytes+1), 64<<10).ReadBytes('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > maxRequestBytes {
			reply(fmt.Errorf("request larger than %d bytes", maxRequestBytes))
		} else {
			reply(fmt.Errorf("read request: %w", err))
		}
		return
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		reply(fmt.Errorf("malformed request: %w", err))
		return
	}
	if err := checkPaths(req.Paths); err != nil {
		reply(err)
		return
	}
	reply(h(req.Paths))
}

// checkPaths vets paths from a peer: absolute, clean, and present on disk.
func checkPaths(paths []string) error {
	if len(paths) > maxPaths {
		return fmt.Errorf("%d paths in one request; at most %d", len(paths), maxPaths)
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return fmt.Errorf("%q: not an absolute clean path", p)
		}
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
	}
	return nil
}

// Send hands paths (absolute) to the primary instance of dataDir and waits for it to accept them. The primary may
// still be starting (it holds the lock before it listens), so a missing socket is retried until ctx ends.
func Send(ctx context.Context, dataDir string, paths []string) error {
	if err := checkPaths(paths); err != nil {
		return err
	}
	path, err := socketPath(dataDir)
	if err != nil {
		return err
	}
	var d net.Dialer
	var c net.Conn
	for {
		c, err = d.DialContext(ctx, "unix", path)
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("reach the running Proofglass at %s: %w", path, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	b, err := json.Marshal(request{Paths: paths})
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	if _, err := c.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("send to the running Proofglass: %w", err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read the running Proofglass's answer: %w", err)
	}
	var r response
	if err := json.Unmarshal(line, &r); err != nil {
		return fmt.Errorf("malformed answer from the running Proofglass: %w", err)
	}
	if !r.OK {
		return fmt.Errorf("the running Proofglass refused: %s", r.Error)
	}
	return nil
}

// socketPath is the socket's path in the data directory. A unix socket path is limited to about a hundred bytes, so
// a deep data directory gets its socket in the per-user runtime directory instead, named after the data directory.
func socketPath(dataDir string) (string, error) {
	p := filepath.Join(dataDir, socketName)
	if len(p) < maxSocketPath {
		return p, nil
	}
	rt := os.Getenv("XDG_RUNTIME_DIR")
	if rt == "" {
		return "", fmt.Errorf("socket path %s is too long and XDG_RUNTIME_DIR is unset", p)
	}
	q := filepath.Join(rt, "proofglass-"+shortHash(dataDir)+".sock")
	if len(q) >= maxSocketPath {
		return "", fmt.Errorf("socket path %s is too long", q)
	}
	return q, nil
}

// maxSocketPath is the shortest sun_path limit among the systems Proofglass targets (104 bytes on macOS, 108 on Linux).
const maxSocketPath = 104

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// LockHeld reports whether another process holds the lock file at path (an absent file is not held). The rename's
// adoption of an old data directory uses it to leave alone a directory an older window still has open.
func LockHeld(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	got, err := tryLock(f)
	return err == nil && !got
}
