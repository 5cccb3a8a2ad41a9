// Package library opens one Proofglass data directory with the long-lived parts that the desktop app, the CLI and the
// HTTP server share: configuration, knowledge base, searcher, PDF renderer and the agent's dependencies.
package library

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"proofglass/backend/agent"
	"proofglass/backend/archive"
	"proofglass/backend/backup"
	"proofglass/backend/buildinfo"
	"proofglass/backend/config"
	"proofglass/backend/grounding"
	"proofglass/backend/ingest"
	"proofglass/backend/instance"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/model"
	"proofglass/backend/model/provider"
	"proofglass/backend/ocr"
	"proofglass/backend/pagecache"
	"proofglass/backend/pdf"
	"proofglass/backend/search"
)

// renderCacheBytes bounds the cache of on-demand page renders held in memory.
const renderCacheBytes = 64 << 20

// Library is an open data directory.
type Library struct {
	Config   *config.Config
	KB       *kb.KB
	Searcher *search.Searcher
	PDF      *pdf.Renderer
	// Pages holds the page image files the HTTP server hands to VRAG clients; a deleted document's files go with it.
	Pages *pagecache.Cache

	pdfClient *pdf.Client

	groundOnce sync.Once
	grounder   *grounding.Grounder

	rerank rerankCache

	ingestMu  sync.Mutex
	ingesters map[IngestOptions]*ingest.Ingester

	refreshMu sync.Mutex // held while a refresh of the learned ranker trains

	summaries autoSummaries
}

// Open loads the configuration of dataDir ("" = PROOFGLASS_DATA or the OS default) and opens its knowledge base.
func Open(ctx context.Context, dataDir string) (*Library, error) {
	cfg, err := config.Load(dataDir)
	if err != nil {
		return nil, err
	}
	return OpenConfig(ctx, cfg)
}

// OpenConfig opens the knowledge base of an already loaded configuration.
func OpenConfig(ctx context.Context, cfg *config.Config) (*Library, error) {
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		return nil, err
	}
	pc := pdf.NewClient(pdf.Options{})
	pages := pagecache.New(PagesDir(cfg), PageCacheOptions(cfg))
	k.OnDelete(func(_ context.Context, ds []kb.Deleted) {
		for _, d := range ds {
			pages.PurgeDocument(d.Collection, d.SHA256)
		}
	})
	l := &Library{
		Config:    cfg,
		KB:        k,
		PDF:       pdf.NewRenderer(pc, pdf.NewCache(renderCacheBytes), 4),
		Pages:     pages,
		pdfClient: pc,
	}
	l.Searcher = search.New(k, search.Options{Embedders: search.ConfigResolver(cfg), IndexDir: cfg.IndexDir(),
		Rerank: l.RerankStage, PageImage: l.rerankImage})
	l.markInterrupted(ctx)
	return l, nil
}

// PageCacheOptions are the page cache's settings.
func PageCacheOptions(cfg *config.Config) pagecache.Options {
	c := cfg.Settings.Cache
	return pagecache.Options{MaxBytes: int64(c.PagesMB) << 20, Lease: time.Duration(c.PagesLeaseMinutes) * time.Minute,
		GroupReadable: c.PagesGroupReadable}
}

// PagesDir is the folder of the page image files served to VRAG clients.
func PagesDir(cfg *config.Config) string { return filepath.Join(cfg.CacheDir(), "pages") }

// Close stops the PDF worker and closes the knowledge base.
func (l *Library) Close() error {
	l.closeIngesters()
	l.stopSummaries()
	l.pdfClient.Close()
	l.Searcher.Close()
	return l.KB.Close()
}

// Chat returns the chat client of a provider profile ("" = the agent default) and the model to use: modelName, or
// the profile's chat model.
func (l *Library) Chat(profile, modelName string) (model.Chat, config.Provider, string, error) {
	p, err := l.Config.Provider(profile)
	if err != nil {
		return nil, p, "", err
	}
	if modelName == "" {
		modelName = p.ChatModel
	}
	if modelName == "" {
		return nil, p, "", fmt.Errorf("provider %s has no chat model: choose one, or set chat_model in %s", p.Name, l.Config.SettingsPath())
	}
	set, err := provider.New(p, provider.Options{})
	if err != nil {
		return nil, p, "", err
	}
	if set.Chat == nil {
		return nil, p, "", fmt.Errorf("provider %s (%s) cannot chat", p.Name, p.Kind)
	}
	return set.Chat, p, modelName, nil
}

// AgentDeps are the parts an agent run needs, with chat as its model.
func (l *Library) AgentDeps(chat model.Chat, log *slog.Logger) kbagent.Deps {
	if log == nil {
		log = slog.Default()
	}
	return kbagent.Deps{KB: l.KB, Search: l.Searcher, PDF: l.PDF, Chat: chat, Log: log, Password: l.PDFPassword,
		Grounder: l.Grounder(), LookupTimeout: lookupTimeout(log), Hold: l.holdRun}
}

// runLock is the lock file a running run's process holds.
func (l *Library) runLock(runID int64) string {
	return filepath.Join(l.Config.DataDir, "locks", fmt.Sprintf("run-%d.lock", runID))
}

// holdRun holds a run's lock file while it goes; without one (a file system that refuses it) the run still runs,
// and only its being marked interrupted after a crash is lost.
func (l *Library) holdRun(runID int64) func() {
	release, err := instance.Hold(l.runLock(runID))
	if err != nil {
		slog.Debug("run lock not held", "run", runID, "err", err)
		return func() {}
	}
	return release
}

// interruptedGrace spares the runs a process has only just created: it takes their lock right after.
var interruptedGrace = 10 * time.Second

// markInterrupted marks failed the runs left running by a process that ended before they did (a stopped serve, a
// killed window): no process holds their lock. Runs of another live process (the window beside a CLI) keep going.
func (l *Library) markInterrupted(ctx context.Context) {
	ids, err := l.KB.History.RunningRuns(ctx, time.Now().Add(-interruptedGrace))
	if err != nil {
		slog.Warn("interrupted runs not checked", "err", err)
		return
	}
	n := 0
	for _, id := range ids {
		if instance.LockHeld(l.runLock(id)) {
			continue
		}
		if err := l.KB.History.FinishRun(ctx, id, "failed", "", nil); err != nil {
			slog.Warn("interrupted run not marked", "run", id, "err", err)
			continue
		}
		os.Remove(l.runLock(id))
		n++
	}
	if n > 0 {
		slog.Info("runs interrupted when Proofglass last stopped are marked failed", "runs", n)
	}
}

// lookupTimeout is $PROOFGLASS_MODEL_LOOKUP_TIMEOUT (a Go duration such as 10s), else 0 (the agent's default).
func lookupTimeout(log *slog.Logger) time.Duration {
	v := config.Getenv("MODEL_LOOKUP_TIMEOUT")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		log.Warn("ignoring "+config.EnvPrefix+"MODEL_LOOKUP_TIMEOUT: want a positive duration such as 10s", "value", v)
		return 0
	}
	return d
}

// Grounder is the library's grounding pass: answers are checked against the words of the regions and pages they
// cite, and a region of a page without text is OCRed (with the ingest languages) once and remembered.
func (l *Library) Grounder() *grounding.Grounder {
	l.groundOnce.Do(func() {
		l.grounder = &grounding.Grounder{KB: l.KB.Content, OCR: &kbagent.RegionReader{
			Renderer: &kbagent.Renderer{KB: l.KB, PDF: l.PDF, Password: l.PDFPassword},
			OCR:      ocr.New(ocr.Options{Languages: l.Config.Current().Ingest.OCRLanguages}),
		}}
	})
	return l.grounder
}

// PageImage draws a unit about width pixels wide for the viewer: a PDF page is re-rendered by MuPDF at the
// resolution asked (sharp at any zoom); an image or a video clip returns its stored normalised image (or thumbnail).
// It returns the encoded image.
func (l *Library) PageImage(ctx context.Context, unitID int64, width int) ([]byte, error) {
	u, err := l.KB.Content.Unit(ctx, unitID)
	if err != nil {
		return nil, err
	}
	if u.Kind != kb.UnitPage || u.Width <= 0 {
		h := u.ImageBlob
		if h == "" {
			h = u.ThumbBlob
		}
		return l.KB.Blobs.Get(h)
	}
	d, err := l.KB.Docs.Document(ctx, u.DocumentID)
	if err != nil {
		return nil, err
	}
	r, err := l.PDF.Render(ctx, l.KB.Blobs.Path(d.Blob), l.PDFPassword(d), pdf.RenderRequest{
		Page: u.Ordinal - 1, DPI: 72 * float64(max(width, 64)) / u.Width, MaxPixels: maxViewerPixels, Format: pdf.JPEG,
		MIME: d.MIME,
	})
	if err != nil {
		return nil, fmt.Errorf("render page %d of %s: %w", u.Ordinal, d.Name, err)
	}
	return r.Data, nil
}

// WarmDocument opens a PDF's document in the render worker ahead of the first page request, so the viewer's first
// page does not wait for the open (on the 2,415-page R manual, 141–158 ms cold against 33 ms warm). Other kinds
// need nothing.
func (l *Library) WarmDocument(ctx context.Context, documentID int64) error {
	d, err := l.KB.Docs.Document(ctx, documentID)
	if err != nil || d.Kind != "pdf" || d.Blob == "" {
		return err
	}
	return l.PDF.Warm(ctx, l.KB.Blobs.Path(d.Blob), l.PDFPassword(d), d.MIME)
}

// maxViewerPixels bounds one viewer render (a deep zoom of a poster-sized page).
const maxViewerPixels = 16 << 20

// PDFPassword is the remembered password of an encrypted PDF ("" for the others).
func (l *Library) PDFPassword(d kb.Document) string {
	v, err := l.Config.Secrets.Get(ingest.PasswordKey(d.SHA256))
	if err != nil {
		return ""
	}
	return v
}

// Turn is the outcome of one question asked in a conversation.
type Turn struct {
	ConversationID int64 // 0 for a run-only question
	RunID          int64
	Result         agent.Result
}

// BeginTurn records a question in a conversation and returns the conversation's id; conversationID 0 starts a new
// one, titled by the question.
func (l *Library) BeginTurn(ctx context.Context, conversationID int64, question string) (int64, error) {
	if conversationID != 0 {
		if _, err := l.KB.History.Conversation(ctx, conversationID); err != nil {
			return 0, err
		}
	}
	if conversationID == 0 {
		c, err := l.KB.History.CreateConversation(ctx, question, 0)
		if err != nil {
			return 0, err
		}
		conversationID = c.ID
	}
	if _, err := l.KB.History.AddMessage(ctx, kb.Message{ConversationID: conversationID, Role: "user", Content: question}); err != nil {
		return 0, err
	}
	return conversationID, nil
}

// AnswerTurn answers the question BeginTurn recorded as a stored run of the conversation, records the answer as the
// assistant's message, and passes every event to sink as it happens. A question that follows earlier turns is first
// understood in their light (rewritten when it leans on them) and searched in the documents they cited first.
func (l *Library) AnswerTurn(ctx context.Context, conversationID int64, chat model.Chat, cfg agent.Config,
	question string, sink agent.Sink) (Turn, error) {
	return l.answerTurn(ctx, conversationID, chat, cfg, question, nil, sink)
}

func (l *Library) answerTurn(ctx context.Context, conversationID int64, chat model.Chat, cfg agent.Config,
	question string, log *slog.Logger, sink agent.Sink) (Turn, error) {
	t := Turn{ConversationID: conversationID}
	fu, prefer, err := l.FollowUp(ctx, conversationID)
	if err != nil {
		return t, err
	}
	cfg.FollowUp, cfg.Prefer = fu, prefer
	t.RunID, t.Result, err = kbagent.Ask(ctx, l.AgentDeps(chat, log), conversationID, cfg, question, sink)
	if t.Result.RunID == "" {
		return t, err
	}
	answer := ""
	if t.Result.Answer != nil {
		answer = t.Result.Answer.Text
	}
	// Stored even when the run was cancelled: the conversation shows what happened.
	if _, merr := l.KB.History.AddMessage(context.WithoutCancel(ctx), kb.Message{ConversationID: conversationID, Role: "assistant",
		Content: answer, RunID: t.RunID}); merr != nil && err == nil {
		err = merr
	}
	return t, err
}

// Backup writes a consistent full backup of the library into dir, a new folder that is a data directory of its own,
// while ingest and searches go on (backend/backup).
func (l *Library) Backup(ctx context.Context, dir string) (*backup.Report, error) {
	return backup.Write(ctx, backup.Source{KB: l.KB, Settings: l.Config.SettingsPath()}, dir)
}

// Export writes the named collections (or, with all, every collection and the runs of none) as one library archive
// to w (backend/archive).
func (l *Library) Export(ctx context.Context, collections []string, all bool, w io.Writer) (*archive.ExportReport, error) {
	return archive.Export(ctx, l.KB, archive.ExportRequest{Collections: collections, All: all,
		AppVersion: buildinfo.Get().Version}, w)
}

// Import reads a library archive of size bytes from r into this library, in one transaction, into the collection
// into (or each into its own name when into is ""), and brings the search index up to date with it.
func (l *Library) Import(ctx context.Context, r io.ReaderAt, size int64, req archive.ImportRequest) (*archive.ImportReport, error) {
	rep, err := archive.Import(ctx, l.KB, r, size, req)
	if err != nil {
		return nil, err
	}
	if l.Searcher != nil {
		if err := l.Searcher.Refresh(ctx); err != nil {
			slog.Warn("library: refresh the search index after an import", "err", err)
		}
	}
	return rep, nil
}
