// Package ingest turns files into knowledge-base units (sniff, store, extract, OCR, embed), resumably and with progress.
//
// Coordinates of the units it writes (kb.Unit Width/Height and kb.Word boxes, origin top-left):
//   - PDF pages: points (1/72 inch) after /Rotate; OCR boxes of scanned pages are converted from the render's
//     pixels to points, so layer and OCR pages read the same way.
//   - Images: pixels of the upright, normalised JPEG stored as the unit's ImageBlob (at most 2048 px on the long
//     side); the original's size is in the document's Meta.
//   - Video clips: Width/Height are the keyframes' pixels; a clip has no word boxes (its frames carry their text).
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"proofglass/backend/config"
	"proofglass/backend/facets"
	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
	"proofglass/backend/media"
	"proofglass/backend/model/provider"
	"proofglass/backend/ocr"
	"proofglass/backend/pdf"
	"proofglass/backend/regularfile"
)

// Stages recorded per unit in kb ingest steps, and reported in Progress.
const (
	StageExtract = "extract" // text layer, word boxes, thumbnail, size (PDF page); decode (image); keyframes (clip)
	StageOCR     = "ocr"     // recognition of a page without a usable text layer, an image or keyframes
	StageEmbed   = "embed"   // vectors of the unit's text (and image, with an image embedder)
)

// Options configure an Ingester. Zero values are sensible defaults.
type Options struct {
	// Workers bounds the parallel work: MuPDF worker processes, tesseract runs and documents in flight.
	// 0 means runtime.NumCPU().
	Workers int
	// PDF configures the MuPDF worker processes (Command/Args/Env for tests; Timeout is the per-operation limit,
	// 0 meaning 30 s here).
	PDF pdf.Options
	// OCR recognises scanned pages, images and keyframes; nil means tesseract with the configured languages. Set
	// NoOCR to skip recognition entirely.
	OCR   *ocr.Engine
	NoOCR bool
	// ImageOCR also OCRs the raster images on pages that have a text layer (imageocr.go). Off by default: on
	// shared/eval/dev it multiplied ingest CPU by ~7 and cost 0.02 recall@5 (photos' OCR noise).
	ImageOCR bool
	// OCRDPI is the resolution scanned pages are rendered at for OCR; 0 means 300 (tesseract's sweet spot).
	OCRDPI float64
	// OCRMaxPixels caps that render (huge pages are rendered at a lower DPI); 0 means 16 megapixels.
	OCRMaxPixels int
	// ThumbSize is the longest side of page thumbnails; 0 means 256.
	ThumbSize int
	// Media shapes video clips (the OCR engine is filled in from OCR).
	Media media.Options
	// Image bounds image decoding.
	Image imagefile.Options
	// Embedders resolves a collection's pinned embedder ids; nil means provider.ConfigResolver of the config (or
	// the built-in embedder without a config).
	Embedders provider.Resolver
	// EmbedBatch is the number of units per embedding call; 0 means 32.
	EmbedBatch int
	// MaxEmbedChars truncates the text sent to the embedder; 0 means 8000.
	MaxEmbedChars int
	// FileTimeout bounds the whole ingest of one file; 0 means 30 minutes.
	FileTimeout time.Duration
	// MaxPages fails a PDF of more pages at once; 0 means the settings' ingest.max_pages, else 20,000.
	MaxPages int
	// MaxBlankPages stops a PDF once this many pages have given no text at all while none has given any (with
	// OCR on); 0 means the settings' ingest.max_blank_pages, else 500.
	MaxBlankPages int
	// Secrets keeps PDF passwords (so resume and on-demand renders can reopen the file); nil means the config's
	// secret store, or memory only without a config.
	Secrets config.SecretStore
	Logger  *slog.Logger
	// Index is the search index ingestion keeps up to date (after documents and at the end of each batch), so no
	// search has to build it: the library passes its searcher. nil: none is refreshed.
	Index Refresher
	// AfterBatch runs when a batch has been ingested and indexed (the library refreshes its learned ranker there
	// when the library has grown). nil: nothing runs.
	AfterBatch func(ctx context.Context)
}

// Refresher is a search index that catches up with the knowledge base (search.Searcher): ingest does not rank, it
// only tells the index to catch up.
type Refresher interface {
	Refresh(ctx context.Context) error
}

// Ingester adds files to a knowledge base. It is safe for concurrent use.
type Ingester struct {
	kb      *kb.KB
	cfg     *config.Config
	o       Options
	clients chan *pdf.Client
	all     []*pdf.Client
	ocrSem  chan struct{}
	log     *slog.Logger
	progMu  sync.Mutex
	progSeq uint64 // under progMu

	memMu      sync.Mutex
	memSecrets map[string]string
	active     map[int64]bool // documents being ingested by this Ingester

	clock   stageClock
	idxRun  sync.Mutex // held while the dense index is refreshed
	idxMu   sync.Mutex
	idxLast time.Time // under idxMu
}

// New returns an Ingester writing to k. cfg may be nil (built-in embedder, default OCR languages).
func New(k *kb.KB, cfg *config.Config, o Options) *Ingester {
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
		if cfg != nil && cfg.Settings.Ingest.Workers > 0 {
			o.Workers = cfg.Settings.Ingest.Workers
		}
	}
	if o.PDF.Timeout <= 0 {
		o.PDF.Timeout = 30 * time.Second
	}
	if o.OCR == nil && !o.NoOCR {
		var langs []string
		if cfg != nil {
			langs = cfg.Settings.Ingest.OCRLanguages
		}
		o.OCR = ocr.New(ocr.Options{Languages: langs})
	}
	if o.NoOCR {
		o.OCR = nil
	}
	if o.OCRDPI <= 0 {
		o.OCRDPI = 300
	}
	if o.OCRMaxPixels <= 0 {
		o.OCRMaxPixels = 16_000_000
	}
	if o.ThumbSize <= 0 {
		o.ThumbSize = 256
	}
	if o.Media.ClipSeconds <= 0 && cfg != nil && cfg.Settings.Ingest.ClipSeconds > 0 {
		o.Media.ClipSeconds = float64(cfg.Settings.Ingest.ClipSeconds)
	}
	o.Media.OCR = o.OCR
	if o.Media.Transcriber == nil && cfg != nil && cfg.Settings.Ingest.Transcription.Model != "" {
		t := cfg.Settings.Ingest.Transcription
		if p, err := cfg.Provider(t.Provider); err != nil {
			slog.Warn("video transcripts off", "err", err)
		} else if tr, err := provider.NewTranscriber(p, t.Model); err != nil {
			slog.Warn("video transcripts off", "err", err)
		} else {
			o.Media.Transcriber = tr
		}
	}
	if o.Embedders == nil {
		if cfg != nil {
			o.Embedders = provider.ConfigResolver(cfg)
		} else {
			o.Embedders = provider.BuiltinResolver
		}
	}
	if o.EmbedBatch <= 0 {
		o.EmbedBatch = 32
	}
	if o.MaxEmbedChars <= 0 {
		o.MaxEmbedChars = 8000
	}
	if o.FileTimeout <= 0 {
		o.FileTimeout = 30 * time.Minute
	}
	if o.MaxPages <= 0 && cfg != nil {
		o.MaxPages = cfg.Settings.Ingest.MaxPages
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 20_000
	}
	if o.MaxBlankPages <= 0 && cfg != nil {
		o.MaxBlankPages = cfg.Settings.Ingest.MaxBlankPages
	}
	if o.MaxBlankPages <= 0 {
		o.MaxBlankPages = 500
	}
	if o.Secrets == nil && cfg != nil {
		o.Secrets = cfg.Secrets
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.PDF.Logger = o.Logger
	in := &Ingester{kb: k, cfg: cfg, o: o, clients: make(chan *pdf.Client, o.Workers),
		ocrSem: make(chan struct{}, o.Workers), log: o.Logger, memSecrets: map[string]string{}, active: map[int64]bool{}}
	for range o.Workers {
		c := pdf.NewClient(o.PDF)
		in.all = append(in.all, c)
		in.clients <- c
	}
	return in
}

// Close stops the MuPDF worker processes.
func (in *Ingester) Close() error {
	for _, c := range in.all {
		c.Close()
	}
	return nil
}

// Workers is the size of the worker pool.
func (in *Ingester) Workers() int { return in.o.Workers }

// ThumbSize is the longest side of the page thumbnails it makes, in pixels.
func (in *Ingester) ThumbSize() int { return in.o.ThumbSize }

// Result is the outcome of one file or document.
type Result struct {
	Path     string      `json:"path,omitempty"`
	Document kb.Document `json:"document"`
	// Existed is true when the file was already in the collection (same sha256) and was not ingested again.
	Existed bool `json:"existed,omitempty"`
	// Skipped is true for a file found in a folder that is not a PDF, image or video; it gets no document.
	Skipped bool   `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
	// Parts are the documents the file held besides its own: a message's attachments, a mailbox's messages (a
	// mailbox is no document itself). Add lists them after the file's own result.
	Parts []Result `json:"parts,omitempty"`
	// Size and ModTime are the file's as opened (before it was read), for a caller that records what it ingested.
	Size    int64     `json:"-"`
	ModTime time.Time `json:"-"`
}

// Request is one Add call's input beyond the paths.
type Request struct {
	Collection string
	Paths      []string
	// Password opens encrypted PDFs of the batch (and retries those already in the collection that need one).
	Password string
	// Watched, for files found in a watched folder (AddFound), records each document the batch creates as its
	// file's in the transaction that creates it, and gives a file that cannot be read a failed document.
	Watched *Watched
}

// Watched names the watched folder a batch's files were found in.
type Watched struct {
	FolderID int64
	Root     string // the folder's absolute path; files' rels are taken under it
}

// Add ingests the files and folders (recursively) at paths into the named collection (created with the default
// embedder when missing). One bad file never stops the batch: its document ends failed with the reason. The
// returned error is for the batch as a whole (no such collection, cancellation); per-file errors are in Results.
func (in *Ingester) Add(ctx context.Context, collection string, paths []string, progress func(Progress)) ([]Result, error) {
	return in.AddRequest(ctx, Request{Collection: collection, Paths: paths}, progress)
}

// AddRequest is Add with a password for encrypted PDFs.
func (in *Ingester) AddRequest(ctx context.Context, r Request, progress func(Progress)) ([]Result, error) {
	if r.Collection == "" {
		r.Collection = kb.DefaultCollection
	}
	coll, err := in.kb.Docs.EnsureCollection(ctx, r.Collection)
	if err != nil {
		return nil, err
	}
	files, err := expand(r.Paths)
	if err != nil {
		return nil, err
	}
	results := make([]Result, len(files))
	g, gctx := errgroup.WithContext(ctx)
	// Twice the workers in documents: a scanned document spends most of its time in tesseract, and text documents
	// beside it keep the MuPDF workers busy instead of queueing behind it (the pools still bound the CPU).
	g.SetLimit(2 * in.o.Workers)
	// Files are read and stored side by side, but become documents in the order they were given, so a batch gets
	// its ids (and its place in the library) in that order. Each waits for the one before it only to register.
	ts := turns(len(files))
	for i, f := range files {
		g.Go(func() error {
			results[i] = in.addFile(gctx, coll, f, r.Password, nil, progress, ts[i])
			return nil
		})
	}
	_ = g.Wait()
	in.batchDone(ctx)
	return flattenParts(results), ctx.Err()
}

// Resume continues every document left queued or ingesting by an interrupted run (a crash, kill -9, a closed
// app), redoing only the units whose steps were not recorded.
func (in *Ingester) Resume(ctx context.Context, progress func(Progress)) ([]Result, error) {
	docs, err := in.kb.Docs.Documents(ctx, 0)
	if err != nil {
		return nil, err
	}
	var todo []kb.Document
	for _, d := range docs {
		if d.Status == kb.StatusQueued || d.Status == kb.StatusIngesting {
			todo = append(todo, d)
		}
	}
	results := make([]Result, len(todo))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(in.o.Workers)
	for i, d := range todo {
		g.Go(func() error {
			results[i] = in.run(gctx, d, "", progress)
			return nil
		})
	}
	_ = g.Wait()
	if len(todo) > 0 {
		in.batchDone(ctx)
	}
	return results, ctx.Err()
}

// Retry ingests a failed (or interrupted) document again from its stored original, keeping the units already
// done; password, when not empty, is used for an encrypted PDF and remembered.
func (in *Ingester) Retry(ctx context.Context, id int64, password string, progress func(Progress)) (Result, error) {
	// The user may answer a failure (with the password it asked for) while the failed attempt is still finishing:
	// wait for it, or this retry would be taken for a duplicate ingest and dropped.
	if err := in.waitInactive(ctx, id); err != nil {
		return Result{}, err
	}
	d, err := in.kb.Docs.Document(ctx, id)
	if err != nil {
		return Result{}, err
	}
	if d.Blob == "" || !in.kb.Blobs.Has(d.Blob) {
		return Result{Document: d, Error: d.Error}, fmt.Errorf("document %d (%s): the original is not stored: add the file again", id, d.Name)
	}
	if d.Status == kb.StatusReady && password == "" {
		return Result{Document: d}, nil
	}
	r := in.run(ctx, d, password, progress)
	in.batchDone(ctx)
	return r, nil
}

// waitInactive returns once no ingest of document id runs in this Ingester.
func (in *Ingester) waitInactive(ctx context.Context, id int64) error {
	for {
		in.memMu.Lock()
		busy := in.active[id]
		in.memMu.Unlock()
		if !busy {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("document %d: %w", id, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Delete removes a document with its units, vectors, steps and the blobs no other document uses, and forgets its
// PDF password unless another collection holds the same file.
func (in *Ingester) Delete(ctx context.Context, id int64) error {
	n, err := in.DeleteDocuments(ctx, []int64{id})
	if err == nil && n == 0 {
		return fmt.Errorf("document %d: %w", id, kb.ErrNotFound)
	}
	return err
}

// deleteBatch is how many documents one transaction deletes: large enough that emptying a folder of thousands of
// files costs a few transactions, small enough that a writer waiting behind one is not held for long.
const deleteBatch = 256

// DeleteDocuments is Delete for many documents: a transaction per batch, one refresh of the dense index and one
// look at the remaining documents' passwords for them all. Ids already gone are skipped; it returns how many it
// deleted.
func (in *Ingester) DeleteDocuments(ctx context.Context, ids []int64) (int, error) {
	var gone []kb.Deleted
	for len(ids) > 0 {
		n := min(len(ids), deleteBatch)
		ds, err := in.kb.Docs.DeleteDocuments(ctx, ids[:n])
		gone = append(gone, ds...)
		if err != nil {
			return len(gone), err
		}
		ids = ids[n:]
	}
	if len(gone) == 0 {
		return 0, nil
	}
	// The saved dense index follows now, so the next search (maybe another process) does not pay for the removal.
	in.refreshIndex(ctx, true)
	// Another collection may hold the same file and still need its password.
	kept := map[string]bool{}
	if err := in.kb.Docs.DocumentKeys(ctx, func(_, sha string) { kept[sha] = true }); err != nil {
		return len(gone), nil
	}
	for _, d := range gone {
		if !kept[d.SHA256] {
			in.deleteSecret(PasswordKey(d.SHA256))
		}
	}
	return len(gone), nil
}

// turn orders the registration of a batch's documents: wait until the file before has registered (or given up), and
// mark this one done so the next may.
type turn struct {
	prev <-chan struct{}
	next chan struct{}
}

// turns orders the registration of n files' documents, first to last.
func turns(n int) []turn {
	ch := make([]chan struct{}, n+1)
	for i := range ch {
		ch[i] = make(chan struct{})
	}
	close(ch[0])
	out := make([]turn, n)
	for i := range out {
		out[i] = turn{ch[i], ch[i+1]}
	}
	return out
}

func (t turn) wait(ctx context.Context) error {
	select {
	case <-t.prev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// addFile stores one file and ingests it, or reports it as already there. Its document is registered in its turn.
func (in *Ingester) addFile(ctx context.Context, coll kb.Collection, f file, password string, watched *Watched, progress func(Progress), t turn) Result {
	passed := false
	pass := func() {
		if !passed {
			passed = true
			close(t.next)
		}
	}
	defer pass() // a file that never registers still lets the next one go
	shown, name := f.shown(), f.displayName()
	res := Result{Path: shown}

	fail := func(err error) Result {
		rerr := &readError{shown, err}
		res.Error = rerr.Error()
		in.emit(progress, failed(Progress{Name: name, Path: shown, Collection: coll.Name, Status: kb.StatusFailed}, rerr))
		return res
	}
	// Everything is read from one descriptor, checked to be a regular file once opened: a file swapped for a link
	// (to a file outside a watched folder), a pipe or a device after the caller looked at it is refused, and what is
	// sniffed, hashed and stored is one and the same file.
	open := regularfile.OpenFollow
	switch {
	case f.root != "":
		open = func(p string) (*os.File, fs.FileInfo, error) { return regularfile.OpenBeneath(f.root, p) }
	case f.fromFolder:
		open = regularfile.Open
	}
	fh, st, err := open(f.path)
	if err != nil {
		if watched != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, regularfile.ErrNotRegular) {
			return in.unreadable(ctx, coll, f, watched, &readError{f.path, unwrapPath(err, f.path)}, progress, t, pass)
		}
		return fail(unwrapPath(err, f.path))
	}
	defer fh.Close()
	res.Size, res.ModTime = st.Size(), st.ModTime()
	head := make([]byte, 1024)
	n, err := io.ReadFull(fh, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fail(err)
	}
	// Content decides; the name only chooses among the readings of plain text (Markdown, CSV, ...). A zip is
	// known from its directory, so a huge file is refused without being read.
	kind, why := imagefile.SniffAt(fh, st.Size(), head[:n], filepath.Ext(f.path))
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	if kind == imagefile.MBOX {
		return in.addMailbox(ctx, coll, f, fh, progress, t, pass)
	}
	docKind := kindOf(kind)
	if docKind == "" && f.fromFolder && !knownExtension(f.path) {
		res.Skipped = true
		in.emit(progress, Progress{Name: name, Path: shown, Collection: coll.Name, Stage: StageSkipped})
		return res
	}
	var sha string
	var size int64
	var rejectErr error
	src := ctxReader{ctx, fh}
	if docKind == "" {
		// Not stored: nothing can be done with it. The failed row still tells the user what happened.
		size = st.Size()
		sha, err = rejectedFingerprint(fh, size)
		docKind = kindFromExtension(f.path)
		rejectErr = rejectReason(shown, size, why)
	} else {
		sha, size, err = in.kb.Blobs.PutReader(src)
	}
	if err != nil {
		if ctx.Err() != nil {
			res.Error = fmt.Sprintf("%s: %v", shown, ctx.Err())
			return res
		}
		return fail(err)
	}
	blob := sha
	if rejectErr != nil {
		blob = ""
	}
	// A blob stored for a document that is then not created (interrupted, or the folder unwatched meanwhile) is
	// swept, unless another row refers to it.
	discard := func() {
		if blob != "" {
			if err := in.kb.Docs.DiscardBlobs(context.WithoutCancel(ctx), []string{blob}); err != nil {
				in.log.Warn("ingest: sweep a stored original", "file", shown, "err", err)
			}
		}
	}
	if err := t.wait(ctx); err != nil {
		discard()
		res.Error = fmt.Sprintf("%s: %v", shown, err)
		return res
	}
	d, existed, err := in.kb.Docs.AddDocumentClaimed(ctx, kb.Document{CollectionID: coll.ID, SHA256: sha, Name: name, SourcePath: shown,
		Kind: docKind, MIME: mimeOf(kind), SizeBytes: size, Blob: blob}, claimOf(watched, f.path, st))
	pass()
	if err != nil {
		discard()
		res.Error = err.Error()
		in.emit(progress, Progress{Name: name, Path: shown, Collection: coll.Name, Stage: StageFailed, Status: kb.StatusFailed, Error: res.Error})
		return res
	}
	if existed {
		resume := d.Status == kb.StatusQueued || d.Status == kb.StatusIngesting
		retry := d.Status == kb.StatusFailed && password != "" && ParseMeta(d.Meta).NeedsPassword
		if !resume && !retry {
			res.Document, res.Existed, res.Error = d, true, d.Error
			if d.Error != "" && d.Name != name {
				res.Error = fmt.Sprintf("%s: same content as %s (document %d): %s", name, d.Name, d.ID, d.Error)
			}
			in.emit(progress, Progress{DocumentID: d.ID, Name: d.Name, Path: shown, Collection: coll.Name, Stage: StageExists,
				Status: d.Status, Error: res.Error, Done: d.Pages, Total: d.Pages})
			return res
		}
	}
	if rejectErr != nil {
		d.Status, d.Error = kb.StatusFailed, rejectErr.Error()
		d.Meta = ParseMeta(d.Meta).withError(rejectErr, d.Name, shown)
		if err := in.kb.Docs.UpdateDocument(ctx, d); err != nil {
			in.log.Error("ingest: record failure", "file", shown, "err", err)
		}
		res.Document, res.Error = d, d.Error
		in.emit(progress, failed(Progress{DocumentID: d.ID, Name: name, Path: shown, Collection: coll.Name,
			Status: kb.StatusFailed}, rejectErr))
		return res
	}
	r := in.run(ctx, d, password, progress)
	r.Path = shown
	if isMessage(d) && r.Error == "" {
		r.Parts = in.addAttachments(ctx, coll, r.Document, f, progress)
	}
	return r
}

// unreadable records a watched file that cannot be opened (no permission, say) so that the folder's passes do not
// try it, and log it, again until it changes: a file that claims to be a PDF, image or video gets a failed document
// with the reason, owned by the file (it leaves with it); any other file is reported skipped with the reason.
func (in *Ingester) unreadable(ctx context.Context, coll kb.Collection, f file, w *Watched, rerr error, progress func(Progress), t turn, pass func()) Result {
	res := Result{Path: f.path, Error: rerr.Error()}
	name := filepath.Base(f.path)
	st, err := os.Lstat(f.path)
	if err != nil || !knownExtension(f.path) {
		res.Skipped = err == nil
		if st != nil {
			res.Size, res.ModTime = st.Size(), st.ModTime()
		}
		in.emit(progress, failed(Progress{Name: name, Path: f.path, Collection: coll.Name, Status: kb.StatusFailed}, rerr))
		return res
	}
	res.Size, res.ModTime = st.Size(), st.ModTime()
	if err := t.wait(ctx); err != nil {
		return res
	}
	// No content to key it by: the key is the path's, so the same unreadable file is one failed document however
	// often it is seen.
	sum := sha256.Sum256([]byte(f.path))
	d, _, err := in.kb.Docs.AddDocumentClaimed(ctx, kb.Document{CollectionID: coll.ID, SHA256: "unreadable-" + hex.EncodeToString(sum[:]),
		Name: name, SourcePath: f.path, Kind: kindFromExtension(f.path), SizeBytes: st.Size(), Status: kb.StatusFailed,
		Error: rerr.Error(), Meta: Meta{}.withError(rerr, name, f.path)}, claimOf(w, f.path, st))
	pass()
	if err != nil {
		res.Error = err.Error()
	} else {
		res.Document = d
	}
	in.emit(progress, failed(Progress{DocumentID: d.ID, Name: name, Path: f.path, Collection: coll.Name, Status: kb.StatusFailed}, rerr))
	return res
}

// run ingests a stored document from its blob, resuming from its recorded steps, and records its final status.
func (in *Ingester) run(ctx context.Context, d kb.Document, password string, progress func(Progress)) Result {
	// The same content twice in one batch, or a Resume racing an Add: one ingest per document at a time.
	in.memMu.Lock()
	busy := in.active[d.ID]
	in.active[d.ID] = true
	in.memMu.Unlock()
	if busy {
		return Result{Document: d, Existed: true}
	}
	defer func() {
		in.memMu.Lock()
		delete(in.active, d.ID)
		in.memMu.Unlock()
		in.documentIndexed(ctx)
	}()
	coll, err := in.kb.Docs.Collection(ctx, d.CollectionID)
	if err != nil {
		return Result{Document: d, Error: err.Error()}
	}
	meta := ParseMeta(d.Meta)
	meta.Warnings = nil
	meta.NeedsPassword = false
	// A password given now is remembered only once it has opened the file (below): a batch password is tried on
	// every file of the batch, and a wrong one must not be kept as if it were right.
	given := password
	if password == "" {
		password = in.getSecret(PasswordKey(d.SHA256))
	}
	d.Status, d.Error = kb.StatusIngesting, ""
	if err := in.kb.Docs.UpdateDocument(ctx, d); err != nil {
		return Result{Document: d, Error: err.Error()}
	}
	job := &job{in: in, doc: d, coll: coll, meta: meta, password: password, progress: progress,
		path: in.kb.Blobs.Path(d.Blob), start: time.Now()}
	fctx, cancel := context.WithTimeout(ctx, in.o.FileTimeout)
	defer cancel()
	err = job.ingest(fctx)
	if err != nil && ctx.Err() != nil {
		// Interrupted (the app is closing, the user cancelled): stay "ingesting" so Resume picks it up.
		return Result{Document: job.doc, Error: ctx.Err().Error()}
	}
	if err != nil && fctx.Err() != nil {
		err = &timeoutError{d.Name, in.o.FileTimeout}
	}
	if given != "" && job.passwordOpened {
		if err := in.setSecret(PasswordKey(d.SHA256), given); err != nil {
			in.log.Warn("ingest: cannot remember the PDF password", "document", d.Name, "err", err)
		}
	}
	d = job.doc
	d.Meta = job.meta.withError(err, d.Name, d.SourcePath)
	if err != nil {
		d.Status, d.Error = kb.StatusFailed, job.clean(err.Error())
		if errors.Is(err, pdf.ErrPasswordRequired) {
			job.meta.NeedsPassword = true
			d.Meta = job.meta.withError(err, d.Name, d.SourcePath)
			d.Error += " (give it with: proofglass documents retry " + fmt.Sprint(d.ID) + " --ask-password)"
		}
	} else {
		d.Status = kb.StatusReady
	}
	// Record the outcome even when the caller's context ends now: a half-written status is what resume is for,
	// but a finished document should say so.
	if uerr := in.kb.Docs.UpdateDocument(context.WithoutCancel(ctx), d); uerr != nil {
		in.log.Error("ingest: record outcome", "document", d.Name, "err", uerr)
	}
	if d.Status == kb.StatusReady {
		// What the document is (title, organisation, kind, period), read again on every ingest; the user's own
		// values are other rows and stay. A failure here costs the facets, not the document.
		if _, err := facets.Refresh(context.WithoutCancel(ctx), in.kb, d.ID); err != nil {
			in.log.Warn("ingest: facets", "document", d.Name, "err", err)
		}
	}
	stage := StageDone
	if d.Status == kb.StatusFailed {
		stage = StageFailed
	}
	code, params := codeOf(err, d.Name, d.SourcePath)
	job.emit(Progress{Stage: stage, Status: d.Status, Error: d.Error, Code: code, Params: params, Done: job.done(), Total: d.Pages})
	return Result{Document: d, Error: d.Error}
}

// Meta is what ingest keeps in a document's meta column.
type Meta struct {
	Warnings      []string          `json:"warnings,omitempty"`
	NeedsPassword bool              `json:"needs_password,omitempty"`
	Encrypted     bool              `json:"encrypted,omitempty"`
	PDF           map[string]string `json:"pdf,omitempty"` // document metadata (title, author, …)
	// Images: the upright size of the original; units hold the normalised image's size.
	Width       int `json:"width,omitempty"`
	Height      int `json:"height,omitempty"`
	Orientation int `json:"orientation,omitempty"`
	// Images and videos: the date the picture was taken (EXIF) or the video made (its container), YYYY-MM-DD.
	Taken    string `json:"taken,omitempty"`
	Format   string `json:"format,omitempty"` // video container
	Codec    string `json:"codec,omitempty"`  // video codec
	OCRUnits int    `json:"ocr_units,omitempty"`
	// A failed document's reason as a code and its values (see codes.go), so the window can say it in its
	// language long after the ingest's own events; the document's error column keeps the English text.
	ErrorCode   string            `json:"error_code,omitempty"`
	ErrorParams map[string]string `json:"error_params,omitempty"`
}

// withError returns the meta JSON of m with err's code and values (none for a nil err).
func (m Meta) withError(err error, name, path string) string {
	m.ErrorCode, m.ErrorParams = codeOf(err, name, path)
	return m.String()
}

// ParseMeta reads a document's meta column; unknown or broken content gives an empty Meta.
func ParseMeta(s string) Meta {
	var m Meta
	_ = json.Unmarshal([]byte(s), &m)
	return m
}

func (m Meta) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// PasswordKey is the secret-store key under which the password of the PDF with this sha256 is kept; renderers
// that reopen the original need it.
func PasswordKey(sha256 string) string { return "pdf-password/" + sha256 }

// Password returns the remembered password of a document's original ("" when none).
func (in *Ingester) Password(d kb.Document) string { return in.getSecret(PasswordKey(d.SHA256)) }

func (in *Ingester) setSecret(k, v string) error {
	in.memMu.Lock()
	in.memSecrets[k] = v
	in.memMu.Unlock()
	if in.o.Secrets != nil {
		return in.o.Secrets.Set(k, v)
	}
	return nil
}

func (in *Ingester) getSecret(k string) string {
	in.memMu.Lock()
	v, ok := in.memSecrets[k]
	in.memMu.Unlock()
	if ok || in.o.Secrets == nil {
		return v
	}
	v, _ = in.o.Secrets.Get(k)
	return v
}

func (in *Ingester) deleteSecret(k string) {
	in.memMu.Lock()
	delete(in.memSecrets, k)
	in.memMu.Unlock()
	if in.o.Secrets != nil {
		_ = in.o.Secrets.Delete(k)
	}
}

// job is the ingest of one document.
type job struct {
	in       *Ingester
	doc      kb.Document
	coll     kb.Collection
	meta     Meta
	password string
	// passwordOpened: the document needed a user password and password opened it.
	passwordOpened bool
	path           string // the stored original
	progress       func(Progress)
	start          time.Time

	mu        sync.Mutex
	doneUnits int // units finished (all stages) in total, including those of an earlier run
	newUnits  int // units finished by this run, for the rate
	total     int
}

func (j *job) ingest(ctx context.Context) error {
	if _, err := os.Stat(j.path); err != nil {
		return fmt.Errorf("%s: the stored original is missing: %w", j.doc.Name, err)
	}
	switch j.doc.Kind {
	case "pdf":
		return j.pdf(ctx)
	case "image":
		return j.image(ctx)
	case "video":
		return j.video(ctx)
	}
	return fmt.Errorf("%s: unknown document kind %q", j.doc.Name, j.doc.Kind)
}

// clean replaces the blob path in error messages with the document's name.
func (j *job) clean(s string) string {
	s = strings.ReplaceAll(s, j.path, j.doc.Name)
	if !strings.Contains(s, j.doc.Name) {
		s = j.doc.Name + ": " + s
	}
	return s
}

func (j *job) warn(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	w := j.clean(fmt.Sprintf(format, args...))
	if len(j.meta.Warnings) < 50 {
		j.meta.Warnings = append(j.meta.Warnings, w)
	}
}

func (j *job) done() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.doneUnits
}
