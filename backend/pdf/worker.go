package pdf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"time"
)

// WorkerCommand is the hidden CLI subcommand that runs ServeWorker; the client re-executes its own binary with it.
const WorkerCommand = "pdf-worker"

// testHooksEnv enables the worker's "crash" and "hang" operations, which tests use to prove that the parent
// survives a dying or stuck worker. Production workers ignore those operations.
const testHooksEnv = "PROOFGLASS_PDF_WORKER_TESTHOOKS"

// ServeWorker answers requests from r on w until r ends. It is the child-process side of Client: all MuPDF work
// happens here, so a crash in MuPDF ends this process only.
func ServeWorker(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 256<<10)
	docs := map[int]*engineDoc{}
	defer func() {
		for _, d := range docs {
			d.close()
		}
	}()
	next := 1
	var wire pageWire // reused: a page answer's words, text and thumbnail
	hooks := os.Getenv(testHooksEnv) == "1"
	// The worker's Go heap is small (MuPDF allocates in C), so the default target collected every few pages;
	// a larger one costs a few megabytes and saves the collections' CPU.
	debug.SetGCPercent(400)
	initWorker()
	if stop := profile(); stop != nil {
		defer stop()
	}
	for {
		var req request
		if _, err := readFrame(br, &req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("pdf worker: read request: %w", err)
		}
		resp := response{ID: req.ID}
		var payload []byte
		switch req.Op {
		case "open":
			lim := Limits{}
			if req.Limits != nil {
				lim = *req.Limits
			}
			d, err := openEngineAs(req.Path, req.Password, req.MIME, lim)
			if err != nil {
				resp.Err = toWire(err)
				break
			}
			docs[next] = d
			resp.Doc = next
			info := d.info()
			resp.Info = &info
			next++
		case "page":
			d, err := lookup(docs, req.Doc)
			if err != nil {
				resp.Err = toWire(err)
				break
			}
			opts := PageOptions{}
			if req.PageOpts != nil {
				opts = *req.PageOpts
			}
			p, err := d.extract(req.Page, opts, &wire)
			if err != nil {
				resp.Err = toWire(err)
				break
			}
			// The words, text and thumbnail travel in the payload, in binary: as JSON the words and text were the
			// largest part of both processes' decoding and encoding time.
			resp.WordsLen, resp.TextLen = wire.wordsLen, wire.textLen
			payload = wire.buf
			resp.Page = p
		case "render":
			d, err := lookup(docs, req.Doc)
			if err != nil || req.Render == nil {
				resp.Err = toWire(errors.Join(err, errors.New("pdf worker: render without request")))
				break
			}
			out, err := d.renderEncoded(*req.Render)
			if err != nil {
				resp.Err = toWire(err)
				break
			}
			payload = out.Data
			resp.Rendered = out
		case "info":
			d, err := lookup(docs, req.Doc)
			if err != nil {
				resp.Err = toWire(err)
				break
			}
			info := d.info()
			resp.Info = &info
		case "close":
			if d, ok := docs[req.Doc]; ok {
				d.close()
				delete(docs, req.Doc)
			}
		case "crash":
			if hooks {
				os.Exit(3)
			}
			resp.Err = &wireError{Kind: "other", Msg: "unknown op crash"}
		case "hang":
			if hooks {
				time.Sleep(time.Hour)
			}
			resp.Err = &wireError{Kind: "other", Msg: "unknown op hang"}
		default:
			resp.Err = &wireError{Kind: "other", Msg: "pdf worker: unknown op " + req.Op}
		}
		if err := writeFrame(bw, resp, payload); err != nil {
			return fmt.Errorf("pdf worker: write response: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("pdf worker: write response: %w", err)
		}
	}
}

func lookup(docs map[int]*engineDoc, id int) (*engineDoc, error) {
	d, ok := docs[id]
	if !ok {
		return nil, fmt.Errorf("pdf worker: no open document %d", id)
	}
	return d, nil
}

// ProfileEnv names an environment variable: when set, each worker writes a CPU profile of its life to
// $PROOFGLASS_PDF_WORKER_CPUPROFILE.<pid>, for finding where extraction time goes (go tool pprof).
const ProfileEnv = "PROOFGLASS_PDF_WORKER_CPUPROFILE"

func profile() func() {
	base := os.Getenv(ProfileEnv)
	if base == "" {
		return nil
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", base, os.Getpid()))
	if err != nil {
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// ServeWorkerIfAsked turns this process into a worker, serving stdin/stdout and exiting, when its first argument is
// WorkerCommand. Test binaries call it from TestMain so the client can re-execute them as its worker, the way the
// proofglass binary serves through its hidden command.
func ServeWorkerIfAsked() {
	if len(os.Args) < 2 || os.Args[1] != WorkerCommand {
		return
	}
	if err := ServeWorker(os.Stdin, os.Stdout); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}
