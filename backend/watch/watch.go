// Package watch keeps collections in sync with folders on disk: file-system notifications (debounced) and a
// periodic rescan feed passes that ingest new and changed files, drop deleted ones and keep renamed ones.
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"proofglass/backend/ingest"
	"proofglass/backend/kb"
)

// Folder is a watched folder as stored (kb owns the watch tables).
type Folder kb.WatchedFolder

// folders lists the watched folders.
func (m *Manager) folders(ctx context.Context) ([]Folder, error) {
	fs, err := m.kb.WatchedFolders(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Folder, len(fs))
	for i, f := range fs {
		out[i] = Folder(f)
	}
	return out, nil
}

// Ingester is the part of ingest.Ingester a Manager uses.
type Ingester interface {
	AddFound(ctx context.Context, r ingest.Request, progress func(ingest.Progress)) ([]ingest.Result, error)
	DeleteDocuments(ctx context.Context, ids []int64) (int, error)
}

// Options configure a Manager. Zero values are the defaults.
type Options struct {
	// Debounce is the quiet time after the last notification before a pass; 0 means 500 ms. A folder that keeps
	// changing is passed at the latest after 10 × Debounce.
	Debounce time.Duration
	// Settle is how long a file must stay unmodified before it is ingested (it may still be being written);
	// 0 means 2 s.
	Settle time.Duration
	// Rescan is the period of full rescans, which catch what notifications miss (network drives, a machine that
	// slept, more folders than the system's watch limit); 0 means 10 minutes, negative never.
	Rescan time.Duration
	// Reload is how often a running Manager re-reads the list of folders (another process may add one); 0 means
	// 30 s.
	Reload time.Duration
	// Recheck is how often a folder found missing is looked for again (a stat), so one moved away and back, or a
	// drive mounted again, is synced within seconds instead of at the next rescan; 0 means 2 s.
	Recheck time.Duration
	// Progress receives the ingest progress of watched files.
	Progress func(ingest.Progress)
	// Changed is called when a folder's status changes (a pass starts or ends, files become pending).
	Changed func(Status)
	// Exclude names directories never walked (the data directory: a watched folder holding it would ingest its own
	// blobs).
	Exclude []string
	Log     *slog.Logger
}

// State is what the Manager is doing with a folder (Status.State).
type State string

// Folder states in Status.
const (
	StateIdle     State = "idle"     // recorded, not watched by this process
	StateWatching State = "watching" // notifications on, nothing to do
	StateScanning State = "scanning" // a pass is running
	StateMissing  State = "missing"  // the folder does not exist (an unmounted drive?): its documents are kept
)

// Status is a folder with what the Manager is doing with it.
type Status struct {
	Folder
	State     State  `json:"state"`
	Pending   int    `json:"pending"` // files waiting to be ingested (being written, or queued in a pass)
	LastError string `json:"last_error,omitempty"`
	// Seq orders statuses: a consumer whose transport reorders messages (Wails' dev websocket) keeps the highest.
	Seq uint64 `json:"seq"`
}

// Store is what watching reads and writes of a knowledge base (kb.KB): its watched folders and their files, and
// the documents and blobs that come and go with them.
type Store interface {
	WatchedFolders(ctx context.Context) ([]kb.WatchedFolder, error)
	WatchedFolderExists(ctx context.Context, id int64) bool
	AddWatchedFolder(ctx context.Context, collectionID int64, path string) (int64, error)
	RemoveWatchedFolder(ctx context.Context, id int64, keep bool) ([]int64, error)
	WatchedFiles(ctx context.Context, folderID int64) (map[string]kb.WatchedFile, error)
	ApplyWatchedFiles(ctx context.Context, folderID int64, remove []string, put []kb.WatchedFile) ([]int64, error)
	SetWatchScanned(ctx context.Context, id int64, at time.Time, errText string) error
	CollectionByName(ctx context.Context, name string) (kb.Collection, error)
	EnsureCollection(ctx context.Context, name string) (kb.Collection, error)
	Documents(ctx context.Context, collectionID int64) ([]kb.Document, error)
	Units(ctx context.Context, documentID int64) ([]kb.Unit, error)
	MoveDocument(ctx context.Context, id int64, name, sourcePath string) error
	PendingDeletions(ctx context.Context) ([]int64, error)
	PurgeBlobs(ctx context.Context) (int, error)
}

// StoreOf is the Store of an open knowledge base: its watch, document and content handles.
func StoreOf(k *kb.KB) Store { return kbStore{k.Watch, k.Docs, k.Content} }

type kbStore struct {
	*kb.Watch
	*kb.Docs
	*kb.Content
}

// Manager watches the folders recorded in a knowledge base.
type Manager struct {
	kb Store
	in Ingester
	o  Options

	mu      sync.Mutex
	live    map[int64]*folder // by folder id, while Run runs
	running bool
	fsw     *fsnotify.Watcher
	dirs    map[string]bool // directories with a notification watch
	wake    chan struct{}
	passing bool
	// started: Run has finished its start-up (interrupted deletions, blobs swept, folders loaded).
	started bool
	seq     uint64 // of the last Status handed out

	// Test hooks: called between a pass's scan and its ingest, and between journalling deletions and doing them
	// (true stops the pass there, as a crash would); noticed after each notification was taken in, so a test knows
	// every earlier one was too.
	beforeIngest func(paths []string)
	beforeDelete func(ids []int64) bool
	noticed      func(path string)
}

// folder is the live state of a watched folder.
type folder struct {
	Folder
	dirty   map[string]bool // rel directories to walk (recursively); "" is the whole folder
	due     time.Time       // when to pass
	first   time.Time       // first change since the last pass (bounds the debounce)
	state   State
	pending int
	lastErr string
}

// New returns a Manager over k that ingests through in.
func New(k Store, in Ingester, o Options) *Manager {
	if o.Debounce <= 0 {
		o.Debounce = 500 * time.Millisecond
	}
	if o.Settle <= 0 {
		o.Settle = 2 * time.Second
	}
	if o.Rescan == 0 {
		o.Rescan = 10 * time.Minute
	}
	if o.Reload <= 0 {
		o.Reload = 30 * time.Second
	}
	if o.Recheck <= 0 {
		o.Recheck = 2 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Manager{kb: k, in: in, o: o, live: map[int64]*folder{}, dirs: map[string]bool{},
		wake: make(chan struct{}, 1)}
}

// Add records dir (made absolute) as watched for the collection (created when missing). A running Manager starts
// watching it at once with a full pass.
func (m *Manager) Add(ctx context.Context, collection, dir string) (Folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Folder{}, fmt.Errorf("watch %s: %w", dir, err)
	}
	abs = filepath.Clean(abs)
	st, err := os.Stat(abs)
	if err != nil {
		return Folder{}, fmt.Errorf("watch %s: %w", dir, err)
	}
	if !st.IsDir() {
		return Folder{}, fmt.Errorf("watch %s: not a folder", dir)
	}
	if collection == "" {
		collection = kb.DefaultCollection
	}
	c, err := m.kb.EnsureCollection(ctx, collection)
	if err != nil {
		return Folder{}, err
	}
	id, err := m.kb.AddWatchedFolder(ctx, c.ID, abs)
	if errors.Is(err, kb.ErrAlreadyWatched) {
		return Folder{}, fmt.Errorf("%s is already watched for collection %s", abs, c.Name)
	}
	if err != nil {
		return Folder{}, err
	}
	f, err := m.folder(ctx, id)
	if err != nil {
		return Folder{}, err
	}
	m.mu.Lock()
	if m.running {
		m.track(f)
	}
	m.mu.Unlock()
	m.poke()
	return f, nil
}

// Find returns the watched folder dir of a collection.
func (m *Manager) Find(ctx context.Context, collection, dir string) (Folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Folder{}, err
	}
	fs, err := m.folders(ctx)
	if err != nil {
		return Folder{}, err
	}
	for _, f := range fs {
		if f.Path == filepath.Clean(abs) && (collection == "" || f.Collection == collection) {
			return f, nil
		}
	}
	return Folder{}, fmt.Errorf("%s is not watched for collection %q: %w", abs, collection, kb.ErrNotFound)
}

// Remove stops watching a folder. Unless keep is set, the documents its files brought into the library leave it
// (those also found in another watched folder, or added by hand, stay). It returns how many documents left.
func (m *Manager) Remove(ctx context.Context, id int64, keep bool) (int, error) {
	m.mu.Lock()
	if f := m.live[id]; f != nil {
		delete(m.live, id)
		m.unwatchUnder(f.Path)
	}
	m.mu.Unlock()
	// The documents to delete are journalled in the transaction that forgets the folder: interrupted here, the next
	// start (or `proofglass doctor --fix`) finishes the deletion.
	gone, err := m.kb.RemoveWatchedFolder(ctx, id, keep)
	if err != nil {
		return 0, err
	}
	n, err := m.in.DeleteDocuments(ctx, gone)
	if err != nil {
		return n, fmt.Errorf("delete the folder's documents (the rest are deleted at the next start): %w", err)
	}
	return n, nil
}

// FinishDeletions deletes the documents journalled for deletion that an interrupted pass or removal left, and
// sweeps the blobs an interrupted deletion left. It returns how many documents it deleted.
func (m *Manager) FinishDeletions(ctx context.Context) (int, error) {
	ids, err := m.kb.PendingDeletions(ctx)
	if err != nil {
		return 0, fmt.Errorf("pending deletions: %w", err)
	}
	n, err := m.in.DeleteDocuments(ctx, ids)
	if err != nil {
		return n, fmt.Errorf("finish pending deletions: %w", err)
	}
	if _, err := m.kb.PurgeBlobs(ctx); err != nil {
		return n, fmt.Errorf("sweep deleted blobs: %w", err)
	}
	return n, nil
}

// Folders lists the watched folders with their live status.
func (m *Manager) Folders(ctx context.Context) ([]Status, error) {
	fs, err := m.folders(ctx)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, len(fs))
	m.seq++
	for i, f := range fs {
		out[i] = Status{Folder: f, State: StateIdle, LastError: f.Error, Seq: m.seq}
		if l := m.live[f.ID]; l != nil {
			out[i].State, out[i].Pending, out[i].LastError = l.state, l.pending, l.lastErr
		}
	}
	return out, nil
}

func (m *Manager) folder(ctx context.Context, id int64) (Folder, error) {
	fs, err := m.folders(ctx)
	if err != nil {
		return Folder{}, err
	}
	for _, f := range fs {
		if f.ID == id {
			return f, nil
		}
	}
	return Folder{}, fmt.Errorf("watched folder %d: %w", id, kb.ErrNotFound)
}

// Run watches every recorded folder until ctx ends: a full pass of each first (what changed while Proofglass was not
// running), then passes after notifications and at every rescan.
func (m *Manager) Run(ctx context.Context) error {
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return fmt.Errorf("file notifications: %w", err)
	}
	defer fsw.Close()
	m.mu.Lock()
	if m.running {
		m.mu.Unlock()
		return errors.New("watch: already running")
	}
	m.running, m.fsw = true, fsw
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.running, m.started, m.fsw, m.live, m.dirs = false, false, nil, map[int64]*folder{}, map[string]bool{}
		m.mu.Unlock()
	}()
	if n, err := m.FinishDeletions(ctx); err != nil {
		m.o.Log.Warn("watch: finish interrupted deletions", "err", err)
	} else if n > 0 {
		m.o.Log.Info("watch: finished deletions an earlier run left", "documents", n)
	}
	if err := m.reload(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // stopped during start-up
		}
		return err
	}
	m.mu.Lock()
	m.started = true
	m.mu.Unlock()
	go m.events(ctx, fsw)
	recheck := time.NewTicker(m.o.Recheck)
	defer recheck.Stop()

	reload := time.NewTicker(m.o.Reload)
	defer reload.Stop()
	var rescan <-chan time.Time
	if m.o.Rescan > 0 {
		t := time.NewTicker(m.o.Rescan)
		defer t.Stop()
		rescan = t.C
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		f, scopes, next := m.due(time.Now())
		if f != nil {
			m.pass(ctx, f, scopes)
			continue
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(next)
		select {
		case <-ctx.Done():
			return nil
		case <-m.wake:
		case <-timer.C:
		case <-reload.C:
			if err := m.reload(ctx); err != nil && ctx.Err() == nil {
				m.o.Log.Warn("watch: reload folders", "err", err)
			}
		case <-recheck.C:
			m.recheckMissing()
		case <-rescan:
			m.mu.Lock()
			for _, f := range m.live {
				m.markLocked(f, "", time.Now())
			}
			m.mu.Unlock()
		}
	}
}

// Idle reports whether a running Manager has nothing to do: no pass running and no folder waiting for one.
func (m *Manager) Idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.passing || !m.started {
		return false
	}
	for _, f := range m.live {
		if len(f.dirty) > 0 || f.pending > 0 {
			return false
		}
	}
	return true
}

// recheckMissing marks for a pass every missing folder that is back.
func (m *Manager) recheckMissing() {
	m.mu.Lock()
	var missing []*folder
	for _, f := range m.live {
		if f.state == StateMissing && len(f.dirty) == 0 {
			missing = append(missing, f)
		}
	}
	m.mu.Unlock()
	for _, f := range missing {
		if st, err := os.Stat(f.Path); err == nil && st.IsDir() {
			m.mu.Lock()
			m.markLocked(f, "", time.Time{})
			m.mu.Unlock()
		}
	}
}

func (m *Manager) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// reload brings the live folders in line with the recorded ones.
func (m *Manager) reload(ctx context.Context) error {
	fs, err := m.folders(ctx)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[int64]bool{}
	for _, f := range fs {
		seen[f.ID] = true
		if m.live[f.ID] == nil {
			m.track(f)
		}
	}
	for id, f := range m.live {
		if !seen[id] {
			delete(m.live, id)
			m.unwatchUnder(f.Path)
		}
	}
	m.poke()
	return nil
}

// track starts watching a folder (under m.mu): a full pass is due now.
func (m *Manager) track(f Folder) {
	l := &folder{Folder: f, dirty: map[string]bool{}, state: StateWatching, lastErr: f.Error}
	m.live[f.ID] = l
	m.markLocked(l, "", time.Time{})
}

// markLocked records that rel (a directory of f, walked recursively) needs a pass at the latest at due (zero: now;
// otherwise debounced).
func (m *Manager) markLocked(f *folder, rel string, at time.Time) {
	now := time.Now()
	f.dirty[rel] = true
	if f.first.IsZero() {
		f.first = now
	}
	if !at.After(now) {
		f.due = now
		return
	}
	if limit := f.first.Add(10 * m.o.Debounce); at.After(limit) {
		at = limit
	}
	if at.After(f.due) {
		f.due = at
	}
}

// due picks the folder whose pass is due, taking its dirty scopes, or says how long to wait for the next one.
func (m *Manager) due(now time.Time) (*folder, []string, time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := time.Hour
	var pick *folder
	for _, f := range m.live {
		if len(f.dirty) == 0 {
			continue
		}
		if !f.due.After(now) && (pick == nil || f.due.Before(pick.due)) {
			pick = f
		}
		if w := f.due.Sub(now); w > 0 && w < next {
			next = w
		}
	}
	if pick == nil {
		return nil, nil, next
	}
	scopes := make([]string, 0, len(pick.dirty))
	for s := range pick.dirty {
		scopes = append(scopes, s)
	}
	pick.dirty, pick.first, pick.due = map[string]bool{}, time.Time{}, time.Time{}
	m.passing = true
	return pick, reduceScopes(scopes), 0
}

// reduceScopes drops the scopes inside another one.
func reduceScopes(scopes []string) []string {
	sort.Strings(scopes)
	var out []string
	for _, s := range scopes {
		if len(out) > 0 && within(s, out[len(out)-1]) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// within reports whether rel is scope or below it ("" holds everything).
func within(rel, scope string) bool {
	return scope == "" || rel == scope || strings.HasPrefix(rel, scope+"/")
}

// events turns notifications into dirty scopes.
func (m *Manager) events(ctx context.Context, fsw *fsnotify.Watcher) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-fsw.Events:
			if !ok {
				return
			}
			// Permission changes count too: a file that could not be read may be readable now. (Reading a file
			// changes no attribute that inotify reports, so this does not loop.)
			m.notice(ev.Name)
			if m.noticed != nil {
				m.noticed(ev.Name)
			}
		case err, ok := <-fsw.Errors:
			if !ok {
				return
			}
			// An overflow lost events: every folder is walked again.
			m.o.Log.Warn("watch: notifications", "err", err)
			m.mu.Lock()
			for _, f := range m.live {
				m.markLocked(f, "", time.Time{})
			}
			m.mu.Unlock()
			m.poke()
		}
	}
}

// notice marks the directory holding path dirty in every folder that contains it.
func (m *Manager) notice(path string) {
	now := time.Now()
	m.mu.Lock()
	for _, f := range m.live {
		if path == f.Path {
			m.markLocked(f, "", now.Add(m.o.Debounce)) // the folder itself was removed or moved
			continue
		}
		rel, ok := relOf(f.Path, path)
		if !ok || hidden(rel) {
			continue
		}
		dir := ""
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			dir = rel[:i]
		}
		m.markLocked(f, dir, now.Add(m.o.Debounce))
	}
	m.mu.Unlock()
	m.poke()
}

// relOf returns path relative to root with slashes, when path is strictly inside root.
func relOf(root, path string) (string, bool) {
	r, err := filepath.Rel(root, path)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// watchDir adds a notification watch (under m.mu). Failures (the system's limit on watches) are logged: the
// periodic rescan still covers the folder.
func (m *Manager) watchDir(dir string) error {
	if m.fsw == nil || m.dirs[dir] {
		return nil
	}
	if err := m.fsw.Add(dir); err != nil {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	m.dirs[dir] = true
	return nil
}

// unwatchUnder drops the notification watches of dir and below (under m.mu), unless another live folder covers
// them.
func (m *Manager) unwatchUnder(dir string) {
	for d := range m.dirs {
		if d != dir && !strings.HasPrefix(d, dir+string(filepath.Separator)) {
			continue
		}
		covered := false
		for _, f := range m.live {
			if d == f.Path || strings.HasPrefix(d, f.Path+string(filepath.Separator)) {
				covered = true
				break
			}
		}
		if !covered {
			if m.fsw != nil {
				_ = m.fsw.Remove(d)
			}
			delete(m.dirs, d)
		}
	}
}

func (m *Manager) status(f *folder) {
	if m.o.Changed == nil {
		return
	}
	m.mu.Lock()
	m.seq++
	s := Status{Folder: f.Folder, State: f.state, Pending: f.pending, LastError: f.lastErr, Seq: m.seq}
	m.mu.Unlock()
	m.o.Changed(s)
}

// deleteDocuments takes documents out of the library with their blobs (the knowledge base's delete hooks purge
// their page renders), in batches. It returns how many left.
func (m *Manager) deleteDocuments(ctx context.Context, ids []int64) int {
	n, err := m.in.DeleteDocuments(ctx, ids)
	if err != nil {
		m.o.Log.Error("watch: delete documents (the rest are deleted at the next start)", "documents", len(ids), "err", err)
	}
	return n
}
