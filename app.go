package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"

	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"loupe/backend/agent"
	"loupe/backend/buildinfo"
	"loupe/backend/config"
	"loupe/backend/ingest"
	"loupe/backend/kb"
	"loupe/backend/kbagent"
	"loupe/backend/model"
	"loupe/backend/model/provider"
	"loupe/backend/pdf"
	"loupe/backend/search"
)

// App is the Wails-bound face of Loupe: one thin method per UI action over the backend packages. No logic lives here.
type App struct {
	ctx      context.Context
	dataDir  string
	cfg      *config.Config
	kb       *kb.KB
	search   *search.Searcher
	renderer *pdf.Renderer
	pdfc     *pdf.Client
	ingester *ingest.Ingester
	initErr  error

	mu   sync.Mutex
	runs map[string]context.CancelFunc // in-flight agent runs by id, for Stop
}

// NewApp prepares the app for the data directory named by --data ("" = LOUPE_DATA or the OS default).
func NewApp(dataDir string) *App {
	return &App{dataDir: dataDir, runs: map[string]context.CancelFunc{}}
}

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
	cfg, err := config.Load(a.dataDir)
	if err != nil {
		a.initErr = err
		slog.Error("load configuration", "err", err)
		return
	}
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		a.initErr = err
		slog.Error("open knowledge base", "err", err)
		return
	}
	a.cfg, a.kb = cfg, k
	a.search = search.New(k, search.Options{Embedders: search.ConfigResolver(cfg), IndexDir: cfg.IndexDir()})
	a.pdfc = pdf.NewClient(pdf.Options{})
	a.renderer = pdf.NewRenderer(a.pdfc, pdf.NewCache(256<<20), 4)
	a.ingester = ingest.New(k, cfg, ingest.Options{})
	// Documents left half-done by a previous session continue in the background.
	go func() {
		if _, err := a.ingester.Resume(ctx, a.emitProgress); err != nil && ctx.Err() == nil {
			slog.Error("resume ingest", "err", err)
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
	if a.pdfc != nil {
		a.pdfc.Close()
	}
	if a.kb != nil {
		a.kb.Close()
	}
}

func (a *App) ready() error {
	if a.initErr != nil {
		return fmt.Errorf("Loupe could not start: %w", a.initErr)
	}
	if a.kb == nil {
		return fmt.Errorf("Loupe is still starting")
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
	s := Status{Version: buildinfo.Get().Version, DataDir: a.cfg.DataDir, Collections: len(cs), Features: features}
	s.SchemaVersion, _ = a.kb.SchemaVersionOf(a.ctx)
	for _, c := range cs {
		s.Documents += c.Documents
	}
	return s, nil
}

// features lists the optional parts wired into this build (see app_*.go).
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

// DeleteDocument removes a document, its units and unshared blobs.
func (a *App) DeleteDocument(id int64) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.kb.DeleteDocument(a.ctx, id)
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
	if err := a.ready(); err != nil {
		return nil, err
	}
	us, err := a.kb.Units(a.ctx, documentID)
	if err != nil {
		return nil, err
	}
	out := make([]PageRef, len(us))
	for i, u := range us {
		out[i] = PageRef{u.ID, u.DocumentID, u.Ordinal, u.Kind, u.Width, u.Height, u.TStartMS, u.TEndMS, u.TextSource, u.ThumbBlob}
	}
	return out, nil
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

// PageImage renders a unit at about width pixels wide as a data: URL: PDF pages are re-rendered by MuPDF, images and
// clips return their stored image.
func (a *App) PageImage(unitID int64, width int) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	u, err := a.kb.Unit(a.ctx, unitID)
	if err != nil {
		return "", err
	}
	if u.Kind != kb.UnitPage || u.Width <= 0 {
		if u.ImageBlob == "" {
			return a.Blob(u.ThumbBlob)
		}
		return a.Blob(u.ImageBlob)
	}
	d, err := a.kb.Document(a.ctx, u.DocumentID)
	if err != nil {
		return "", err
	}
	r, err := a.renderer.Render(a.ctx, a.kb.Blobs.Path(d.Blob), "", pdf.RenderRequest{
		Page: u.Ordinal - 1, DPI: 72 * float64(max(width, 64)) / u.Width, MaxPixels: 16 << 20, Format: pdf.JPEG,
	})
	if err != nil {
		return "", fmt.Errorf("render page %d of %s: %w", u.Ordinal, d.Name, err)
	}
	return dataURL(r.Data), nil
}

func dataURL(b []byte) string {
	return "data:" + http.DetectContentType(b) + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// Search runs a hybrid search over one collection ("" = all).
func (a *App) Search(query, collection string, k int) (search.Result, error) {
	if err := a.ready(); err != nil {
		return search.Result{}, err
	}
	q := search.Query{Text: query, K: k}
	if collection != "" {
		q.Collections = []string{collection}
	}
	return a.search.Search(a.ctx, q)
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

// Settings returns the settings (API keys are never included).
func (a *App) Settings() (config.Settings, error) {
	if err := a.ready(); err != nil {
		return config.Settings{}, err
	}
	return a.cfg.Settings, nil
}

// SaveSettings replaces the settings and writes them to the data directory.
func (a *App) SaveSettings(s config.Settings) error {
	if err := a.ready(); err != nil {
		return err
	}
	a.cfg.Settings = s
	return a.cfg.Save()
}

// SetAPIKey stores a provider's API key in the OS keyring (or the 0600 fallback file).
func (a *App) SetAPIKey(profile, key string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.cfg.SetAPIKey(profile, key)
}

// TestProvider checks a provider profile as given (unsaved edits included): reachability, version, models found.
func (a *App) TestProvider(p config.Provider) provider.Result {
	if a.cfg != nil {
		if saved, err := a.cfg.Provider(p.Name); err == nil {
			p.APIKey = saved.APIKey
		}
	}
	return provider.Test(a.ctx, p)
}

// ListModels lists the models a provider profile serves, with their capabilities.
func (a *App) ListModels(p config.Provider) ([]model.Info, error) {
	r := a.TestProvider(p)
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

// SaveTextFile asks where to save and writes content there (conversation exports); "" when cancelled.
func (a *App) SaveTextFile(defaultName, content string) (string, error) {
	path, err := wruntime.SaveFileDialog(a.ctx, wruntime.SaveDialogOptions{Title: "Export conversation", DefaultFilename: defaultName})
	if err != nil || path == "" {
		return "", err
	}
	return path, os.WriteFile(path, []byte(content), 0o644)
}

// AddPaths ingests files and folders into a collection in the background; progress arrives as ingest:progress events.
func (a *App) AddPaths(collection string, paths []string) error {
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

// RetryDocument ingests a failed document again from its stored original.
func (a *App) RetryDocument(id int64) error {
	if err := a.ready(); err != nil {
		return err
	}
	go func() {
		if _, err := a.ingester.Retry(a.ctx, id, "", a.emitProgress); err != nil && a.ctx.Err() == nil {
			wruntime.EventsEmit(a.ctx, eventIngest, ingest.Progress{DocumentID: id, Stage: ingest.StageFailed, Error: err.Error()})
		}
	}()
	return nil
}

// AskRequest is a question from the chat screen.
type AskRequest struct {
	ConversationID int64  `json:"conversation_id"` // 0 starts a new conversation
	Question       string `json:"question"`
	Mode           string `json:"mode"`
	Think          bool   `json:"think"`
	Collection     string `json:"collection"`
	Provider       string `json:"provider"` // "" = the agent default
	Model          string `json:"model"`    // "" = the provider's chat model
}

// AskStarted names the run whose events will follow as agent:event.
type AskStarted struct {
	RunID          string `json:"run_id"`
	ConversationID int64  `json:"conversation_id"`
}

// Ask starts an agent run in the background; its events stream as agent:event and are stored for replay.
func (a *App) Ask(r AskRequest) (AskStarted, error) {
	if err := a.ready(); err != nil {
		return AskStarted{}, err
	}
	profile := r.Provider
	if profile == "" {
		profile = a.cfg.Settings.Agent.Provider
	}
	p, err := a.cfg.Provider(profile)
	if err != nil {
		return AskStarted{}, err
	}
	modelName := r.Model
	if modelName == "" {
		modelName = p.ChatModel
	}
	if modelName == "" {
		return AskStarted{}, fmt.Errorf("provider %s has no chat model: choose one in Settings", p.Name)
	}
	set, err := provider.New(p, provider.Options{})
	if err != nil {
		return AskStarted{}, err
	}
	if set.Chat == nil {
		return AskStarted{}, fmt.Errorf("provider %s (%s) cannot chat", p.Name, p.Kind)
	}
	conv := kb.Conversation{ID: r.ConversationID}
	if conv.ID == 0 {
		if conv, err = a.kb.CreateConversation(a.ctx, r.Question, 0); err != nil {
			return AskStarted{}, err
		}
	}
	if _, err := a.kb.AddMessage(a.ctx, kb.Message{ConversationID: conv.ID, Role: "user", Content: r.Question}); err != nil {
		return AskStarted{}, err
	}
	cfg := agent.Config{Mode: agent.Mode(r.Mode), Provider: p.Name, Model: modelName, Collection: r.Collection, Think: r.Think}
	d := kbagent.Deps{KB: a.kb, Search: a.search, PDF: a.renderer, Chat: set.Chat, Log: slog.Default()}
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
		runID, res, err := kbagent.Ask(ctx, d, conv.ID, cfg, r.Question, sink)
		a.mu.Lock()
		delete(a.runs, kbagent.ID(runID))
		a.mu.Unlock()
		if res.RunID == "" {
			if err == nil {
				err = errors.New("the run did not start")
			}
			failed <- err
			return
		}
		answer := ""
		if res.Answer != nil {
			answer = res.Answer.Text
		}
		if _, err := a.kb.AddMessage(context.WithoutCancel(ctx), kb.Message{ConversationID: conv.ID, Role: "assistant", Content: answer, RunID: runID}); err != nil {
			slog.Error("store answer", "conversation", conv.ID, "err", err)
		}
	}()
	select {
	case id := <-started:
		return AskStarted{RunID: id, ConversationID: conv.ID}, nil
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
