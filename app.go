package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"proofglass/backend/agent"
	"proofglass/backend/buildinfo"
	"proofglass/backend/config"
	"proofglass/backend/filegate"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/library"
	"proofglass/backend/model"
	"proofglass/backend/model/provider"
	"proofglass/backend/sample"
	"proofglass/backend/search"
)

// App is the Wails-bound face of Proofglass: one thin method per UI action over the backend packages. No logic lives here.
type App struct {
	ctx      context.Context
	dataDir  string
	lib      *library.Library
	kb       *kb.KB // lib.KB, for brevity
	ingester *ingest.Ingester
	initErr  error

	mu   sync.Mutex
	runs map[string]context.CancelFunc // in-flight agent runs by id, for Stop

	exports filegate.Gate // the one path the last save dialog returned
}

// NewApp prepares the app for the data directory named by --data ("" = PROOFGLASS_DATA or the OS default).
func NewApp(dataDir string) *App {
	return &App{dataDir: dataDir, runs: map[string]context.CancelFunc{},
		exports: filegate.Gate{Exts: []string{".md", ".markdown", ".html", ".htm"}}}
}

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
	lib, err := library.Open(ctx, a.dataDir)
	if err != nil {
		a.initErr = err
		slog.Error("open the data directory", "err", err)
		return
	}
	a.lib, a.kb = lib, lib.KB
	lib.Search.UseLexicalIndex() // the window searches all session long: full-text ranking from memory
	a.ingester = ingest.New(lib.KB, lib.Config, ingest.Options{Index: lib.Search})
	// Documents left half-done by a previous session continue in the background; then collections whose units
	// lack vectors of their pinned embedders (an embedder change, an older knowledge base) are re-embedded.
	go func() {
		if _, err := a.ingester.Resume(ctx, a.emitProgress); err != nil && ctx.Err() == nil {
			slog.Error("resume ingest", "err", err)
		}
		cs, err := lib.KB.Collections(ctx)
		if err != nil {
			return
		}
		for _, c := range cs {
			if _, err := a.ingester.Reembed(ctx, c.Name, a.emitProgress); err != nil && ctx.Err() == nil {
				slog.Error("re-embed", "collection", c.Name, "err", err)
			}
		}
	}()
}

// Ingest progress and agent events go to the UI under these names.
const (
	eventIngest = "ingest:progress"
	eventAgent  = "agent:event"
)

func (a *App) emitProgress(p ingest.Progress) { wruntime.EventsEmit(a.ctx, eventIngest, p) }

func (a *App) shutdown(context.Context) {
	a.mu.Lock()
	for _, cancel := range a.runs {
		cancel()
	}
	a.mu.Unlock()
	if a.ingester != nil {
		a.ingester.Close()
	}
	if a.lib != nil {
		a.lib.Close()
	}
}

func (a *App) ready() error {
	if a.initErr != nil {
		return fmt.Errorf("Proofglass could not start: %w", a.initErr)
	}
	if a.kb == nil {
		return fmt.Errorf("Proofglass is still starting")
	}
	return nil
}

// Status is what the shell shows about the running app.
type Status struct {
	Version       string `json:"version"`
	DataDir       string `json:"data_dir"`
	SchemaVersion int    `json:"schema_version"`
	Collections   int    `json:"collections"`
	Documents     int    `json:"documents"`
	// Features names the backend parts this build has, so the UI can hide what is not there yet.
	Features []string `json:"features"`
}

// Status reports version, data directory and knowledge-base counts.
func (a *App) Status() (Status, error) {
	if err := a.ready(); err != nil {
		return Status{}, err
	}
	cs, err := a.kb.Collections(a.ctx)
	if err != nil {
		return Status{}, err
	}
	s := Status{Version: buildinfo.Get().Version, DataDir: a.lib.Config.DataDir, Collections: len(cs), Features: features}
	s.SchemaVersion, _ = a.kb.SchemaVersionOf(a.ctx)
	for _, c := range cs {
		s.Documents += c.Documents
	}
	return s, nil
}

// features lists the backend parts this build has, so the UI shows only what works.
var features = []string{"search", "render", "ingest", "ask"}

// Collections lists the collections with their document and unit counts.
func (a *App) Collections() ([]kb.Collection, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.kb.Collections(a.ctx)
}

// CreateCollection makes a collection with the default (built-in) embedder, or returns the existing one.
func (a *App) CreateCollection(name string) (kb.Collection, error) {
	if err := checkName("collection", name); err != nil || strings.TrimSpace(name) == "" {
		return kb.Collection{}, fmt.Errorf("collection %q: not a valid name", clipArg(name))
	}
	if err := a.ready(); err != nil {
		return kb.Collection{}, err
	}
	return a.kb.EnsureCollection(a.ctx, name)
}

// Documents lists a collection's documents with status and error.
func (a *App) Documents(collectionID int64) ([]kb.Document, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.kb.Documents(a.ctx, collectionID)
}

// DeleteDocument removes a document, its units and unshared blobs, and forgets its password (as `proofglass documents
// delete` does).
func (a *App) DeleteDocument(id int64) error {
	if err := checkID("document", id); err != nil {
		return err
	}
	if err := a.ready(); err != nil {
		return err
	}
	return a.ingester.Delete(a.ctx, id)
}

// PageRef is a unit as the grid and the viewer need it: no text or word boxes, which can be large.
type PageRef struct {
	ID         int64   `json:"id"`
	DocumentID int64   `json:"document_id"`
	Ordinal    int     `json:"ordinal"`
	Kind       string  `json:"kind"`
	Width      float64 `json:"width"`
	Height     float64 `json:"height"`
	TStartMS   int64   `json:"t_start_ms,omitempty"`
	TEndMS     int64   `json:"t_end_ms,omitempty"`
	TextSource string  `json:"text_source"`
	Thumb      string  `json:"thumb,omitempty"`
}

// Pages lists a document's units for the page grid.
func (a *App) Pages(documentID int64) ([]PageRef, error) {
	if err := checkID("document", documentID); err != nil {
		return nil, err
	}
	if err := a.ready(); err != nil {
		return nil, err
	}
	// The grid is open, so the viewer comes next: open the PDF in the render worker meanwhile.
	go func() {
		if err := a.lib.WarmDocument(a.ctx, documentID); err != nil && a.ctx.Err() == nil {
			slog.Warn("warm document", "document", documentID, "err", err)
		}
	}()
	us, err := a.kb.UnitRefs(a.ctx, documentID)
	if err != nil {
		return nil, err
	}
	out := make([]PageRef, len(us))
	for i, u := range us {
		out[i] = pageRef(u)
	}
	return out, nil
}

func pageRef(u kb.Unit) PageRef {
	return PageRef{u.ID, u.DocumentID, u.Ordinal, u.Kind, u.Width, u.Height, u.TStartMS, u.TEndMS, u.TextSource, u.ThumbBlob}
}

// Cover returns a document's first page for its card in the library, or nil while it has none. Unlike Pages it
// neither lists every page nor opens the document for rendering: a library shows a hundred covers at once.
func (a *App) Cover(documentID int64) (*PageRef, error) {
	if err := checkID("document", documentID); err != nil {
		return nil, err
	}
	if err := a.ready(); err != nil {
		return nil, err
	}
	u, err := a.kb.FirstUnitRef(a.ctx, documentID)
	if errors.Is(err, kb.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p := pageRef(u)
	return &p, nil
}

// Blob returns a stored blob (thumbnail, crop, keyframe) as a data: URL.
func (a *App) Blob(hash string) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	if !kb.ValidHash(hash) {
		return "", fmt.Errorf("blob %q: not a content hash", hash)
	}
	b, err := a.kb.Blobs.Get(hash)
	if err != nil {
		return "", err
	}
	return dataURL(b), nil
}

// PageImage renders a unit about width pixels wide as a data: URL (PDF pages sharp at any zoom).
func (a *App) PageImage(unitID int64, width int) (string, error) {
	if err := checkID("unit", unitID); err != nil {
		return "", err
	}
	width = clampWidth(width)
	if err := a.ready(); err != nil {
		return "", err
	}
	b, err := a.lib.PageImage(a.ctx, unitID, width)
	if err != nil {
		return "", err
	}
	return dataURL(b), nil
}

func dataURL(b []byte) string {
	return "data:" + http.DetectContentType(b) + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// Search runs a hybrid search over one collection ("" = all).
func (a *App) Search(query, collection string, k int) (search.Result, error) {
	if err := checkQuery("search", query); err != nil {
		return search.Result{}, err
	}
	if err := checkName("collection", collection); err != nil {
		return search.Result{}, err
	}
	k = min(max(k, 0), maxK)
	if err := a.ready(); err != nil {
		return search.Result{}, err
	}
	q := search.Query{Text: query, K: k}
	if collection != "" {
		q.Collections = []string{collection}
	}
	return a.lib.Search.Search(a.ctx, q)
}

// PickFiles opens the system file dialog for documents to add.
func (a *App) PickFiles() ([]string, error) {
	return wruntime.OpenMultipleFilesDialog(a.ctx, wruntime.OpenDialogOptions{
		Title: "Add documents",
		Filters: []wruntime.FileFilter{
			{DisplayName: "Documents, images and videos", Pattern: "*.pdf;*.png;*.jpg;*.jpeg;*.webp;*.gif;*.tif;*.tiff;*.bmp;*.mp4;*.mov;*.mkv;*.webm"},
			{DisplayName: "All files", Pattern: "*"},
		},
	})
}

// PickFolder opens the system dialog for a folder to add.
func (a *App) PickFolder() (string, error) {
	return wruntime.OpenDirectoryDialog(a.ctx, wruntime.OpenDialogOptions{Title: "Add a folder"})
}

// Settings returns the settings in effect (environment overrides applied; API keys are never included).
func (a *App) Settings() (config.Settings, error) {
	if err := a.ready(); err != nil {
		return config.Settings{}, err
	}
	return a.lib.Config.Current(), nil
}

// SaveSettings saves the values the window changed: environment overrides and API keys are kept out of the file,
// and what the window did not touch stays as it was (config.Update). Every value is checked as untrusted input.
func (a *App) SaveSettings(s config.Settings) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.lib.Config.Update(s)
}

// SetAPIKey stores a provider's API key in the OS keyring (or the 0600 fallback file); "" removes it. The key is
// never read back by the window.
func (a *App) SetAPIKey(profile, key string) error {
	if err := a.ready(); err != nil {
		return err
	}
	if err := checkName("profile", profile); err != nil {
		return err
	}
	if err := checkAPIKey(key); err != nil {
		return err
	}
	return a.lib.Config.SetAPIKey(profile, key)
}

// TestProvider checks a provider profile as given (unsaved edits included): reachability, version, models found.
// apiKey is a key the user typed and has not saved ("" = none); otherwise the stored key is used only when the
// profile still points at its saved URL, so no page script can send a stored key to a host of its choosing.
func (a *App) TestProvider(p config.Provider, apiKey string) provider.Result {
	if err := checkProfile(p); err != nil {
		return provider.Result{Name: p.Name, Kind: p.Kind, Error: err.Error()}
	}
	if err := checkAPIKey(apiKey); err != nil {
		return provider.Result{Name: p.Name, Kind: p.Kind, Error: err.Error()}
	}
	if a.lib != nil {
		p = a.lib.Config.ForTest(p, apiKey)
	} else {
		p.APIKey = apiKey
	}
	return provider.Test(a.ctx, p)
}

// ListModels lists the models a provider profile serves, with their capabilities (the key as TestProvider uses it).
func (a *App) ListModels(p config.Provider, apiKey string) ([]model.Info, error) {
	r := a.TestProvider(p, apiKey)
	if r.Error != "" && len(r.Infos) == 0 {
		return nil, errors.New(r.Error)
	}
	return r.Infos, nil
}

// Conversations lists chat threads, newest first.
func (a *App) Conversations() ([]kb.Conversation, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.kb.Conversations(a.ctx)
}

// Messages lists a conversation's turns.
func (a *App) Messages(conversationID int64) ([]kb.Message, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.kb.Messages(a.ctx, conversationID)
}

// DeleteConversation removes a thread.
func (a *App) DeleteConversation(id int64) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.kb.DeleteConversation(a.ctx, id)
}

// RunEvents returns a stored run's events (each the JSON of an agent.Event), for replay.
func (a *App) RunEvents(runID int64) ([]json.RawMessage, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	evs, err := a.kb.Events(a.ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		out[i] = e.Data
	}
	return out, nil
}

// ChooseSavePath asks where to save an export; "" when cancelled. The path chosen is remembered: it is the only
// one WriteTextFile will write, once.
func (a *App) ChooseSavePath(defaultName string) (string, error) {
	if len(defaultName) > 255 || strings.ContainsAny(defaultName, "/\\\x00") {
		defaultName = "conversation.md"
	}
	path, err := saveFileDialog(a.ctx, wruntime.SaveDialogOptions{Title: "Export conversation", DefaultFilename: defaultName})
	if err != nil {
		a.exports.Choose("")
		return "", err
	}
	a.exports.Choose(path)
	return path, nil
}

// WriteTextFile writes an export (Markdown or self-contained HTML) to the path the last ChooseSavePath returned,
// once: a script in the webview cannot use it to write ~/.bashrc or any path the user did not choose.
func (a *App) WriteTextFile(path, content string) error {
	return a.exports.Write(path, []byte(content))
}

// AddPaths ingests files and folders into a collection in the background; progress arrives as ingest:progress events.
func (a *App) AddPaths(collection string, paths []string) error {
	if err := checkName("collection", collection); err != nil {
		return err
	}
	if err := checkPaths(paths); err != nil {
		return err
	}
	if err := a.ready(); err != nil {
		return err
	}
	go func() {
		if _, err := a.ingester.Add(a.ctx, collection, paths, a.emitProgress); err != nil && a.ctx.Err() == nil {
			wruntime.EventsEmit(a.ctx, eventIngest, ingest.Progress{Name: fmt.Sprint(paths), Stage: ingest.StageFailed, Error: err.Error()})
		}
	}()
	return nil
}

// AddSampleLibrary adds the bundled public-domain samples (a text PDF, a scanned page, an image, a film clip) to a
// collection, as AddPaths does.
func (a *App) AddSampleLibrary(collection string) error {
	if err := checkName("collection", collection); err != nil {
		return err
	}
	if err := a.ready(); err != nil {
		return err
	}
	paths, err := sample.Extract(filepath.Join(a.lib.Config.DataDir, "samples"))
	if err != nil {
		return err
	}
	if collection == "" {
		collection = sample.Collection
	}
	return a.AddPaths(collection, paths)
}

// RetryDocument ingests a failed document again from its stored original, with a PDF password when one is given.
func (a *App) RetryDocument(id int64, password string) error {
	if err := checkID("document", id); err != nil {
		return err
	}
	if err := checkPassword(password); err != nil {
		return err
	}
	if err := a.ready(); err != nil {
		return err
	}
	go func() {
		if _, err := a.ingester.Retry(a.ctx, id, password, a.emitProgress); err != nil && a.ctx.Err() == nil {
			wruntime.EventsEmit(a.ctx, eventIngest, ingest.Progress{DocumentID: id, Stage: ingest.StageFailed, Error: err.Error()})
		}
	}()
	return nil
}

// AskRequest is a question from the chat screen.
type AskRequest struct {
	ConversationID int64   `json:"conversation_id"` // 0 starts a new conversation
	Question       string  `json:"question"`
	Documents      []int64 `json:"documents"` // the scope: the agent searches these documents only; empty = all
	// Mode, model, sampling, limits and the context window of this run; unset = the profile's, else the mode's.
	library.AskOptions
}

// AskStarted names the run whose events will follow as agent:event.
type AskStarted struct {
	RunID          string `json:"run_id"`
	ConversationID int64  `json:"conversation_id"`
}

// Ask starts an agent run in the background; its events stream as agent:event and are stored for replay.
func (a *App) Ask(r AskRequest) (AskStarted, error) {
	if err := checkQuery("question", r.Question); err != nil {
		return AskStarted{}, err
	}
	for what, v := range map[string]string{"mode": r.Mode, "collection": r.Collection, "provider": r.Provider, "model": r.Model} {
		if err := checkName(what, v); err != nil {
			return AskStarted{}, err
		}
	}
	if err := a.ready(); err != nil {
		return AskStarted{}, err
	}
	chat, cfg, err := a.lib.AgentConfig(r.RunOptions())
	if err != nil {
		return AskStarted{}, err
	}
	convID, err := a.lib.BeginTurn(a.ctx, r.ConversationID, r.Question)
	if err != nil {
		return AskStarted{}, err
	}
	cfg.Documents = r.Documents
	ctx, cancel := context.WithCancel(a.ctx)
	started := make(chan string, 1)
	sink := func(ev agent.Event) {
		if ev.Kind == agent.KindRunStarted {
			a.mu.Lock()
			a.runs[ev.RunID] = cancel
			a.mu.Unlock()
			started <- ev.RunID
		}
		wruntime.EventsEmit(a.ctx, eventAgent, ev)
	}
	failed := make(chan error, 1)
	go func() {
		defer cancel()
		t, err := a.lib.AnswerTurn(ctx, convID, chat, cfg, r.Question, sink)
		a.mu.Lock()
		delete(a.runs, kbagent.ID(t.RunID))
		a.mu.Unlock()
		if t.Result.RunID == "" {
			if err == nil {
				err = errors.New("the run did not start")
			}
			failed <- err
		}
	}()
	select {
	case id := <-started:
		return AskStarted{RunID: id, ConversationID: convID}, nil
	case err := <-failed:
		return AskStarted{}, err
	}
}

// Stop cancels a running agent run; it ends with a cancelled done event.
func (a *App) Stop(runID string) {
	a.mu.Lock()
	cancel := a.runs[runID]
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
