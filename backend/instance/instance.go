// Package instance keeps one Proofglass window per data directory: the first launch listens on a unix socket in the data
// directory (on Windows, a loopback port with a token, named in a file there), and a later launch hands it the files
// it was asked to open instead of opening a second window.
package instance

import (
	"bufio"
	"context"
	"crypto/subtle"
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

// lockName is the lock file inside the data directory (the endpoint's file is per OS: endpointName).
const lockName = "proofglass.lock"

// Limits on what a peer may send: a request is a single JSON line.
const (
	maxRequestBytes = 4 << 20
	maxPaths        = 10000
)

// request is what a later launch sends, one JSON line; response is the primary's one-line answer.
type request struct {
	Token string   `json:"token,omitempty"` // the endpoint's token where the endpoint is not private by itself
	Paths []string `json:"paths"`
}

type response struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Handler receives the absolute paths a later launch asked to open (none: it only asked for the window). An error is
// reported back to that launch.
type Handler func(paths []string) error

// Primary is the first launch's hold on a data directory: the lock and the endpoint later launches connect to.
type Primary struct {
	lock  *os.File
	ln    net.Listener
	path  string // the endpoint's file: the socket, or the file naming the port
	token string // what a request must carry; "" where the endpoint is private (a 0600 unix socket)
	wg    sync.WaitGroup
	once  sync.Once
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
	// Holding the lock proves any endpoint file left here belongs to a process that has exited.
	ln, path, token, err := listen(dataDir)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &Primary{lock: lock, ln: ln, path: path, token: token}, nil
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
				serveConn(c, p.token, h)
			}()
		}
	}()
}

// Close stops listening, removes the endpoint's file and releases the data directory.
func (p *Primary) Close() error {
	var err error
	p.once.Do(func() {
		err = p.ln.Close() // removes the endpoint's file (a unix listener its socket)
		p.wg.Wait()
		if e := p.lock.Close(); err == nil {
			err = e
		}
	})
	return err
}

func serveConn(c net.Conn, token string, h Handler) {
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
	if subtle.ConstantTimeCompare([]byte(req.Token), []byte(token)) != 1 {
		reply(errors.New("wrong token"))
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
// still be starting (it holds the lock before it listens), so a missing endpoint is retried until ctx ends.
func Send(ctx context.Context, dataDir string, paths []string) error {
	if err := checkPaths(paths); err != nil {
		return err
	}
	var c net.Conn
	var token string
	for {
		var err error
		c, token, err = dial(ctx, dataDir)
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("reach the running Proofglass: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	b, err := json.Marshal(request{Token: token, Paths: paths})
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

// Hold creates the lock file at path (and its folder) and holds an exclusive lock on it until release is called or
// the process ends, however it ends: LockHeld then reports it held, in any process, this one included. A running
// agent run holds one, so a later start can tell a run that is still going from one its process left behind.
func Hold(path string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	got, err := tryLock(f)
	if err != nil || !got {
		f.Close()
		if err == nil {
			err = errors.New("held by another process")
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		f.Close() // closing the file drops the lock
		os.Remove(path)
	}, nil
}
