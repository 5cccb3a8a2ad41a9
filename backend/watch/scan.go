package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/regularfile"
)

// stat is what a pass compares with the recorded row: a file whose size and modification time are unchanged is
// not read again.
type stat struct {
	size    int64
	mtimeNS int64
	mode    int64 // permission bits: a file that could not be read is tried again once they change
}

// same reports whether the file is as recorded (a row from before modes were recorded matches any mode).
func (s stat) same(r kb.WatchedFile) bool {
	return r.Size == s.size && r.MtimeNS == s.mtimeNS && (r.Mode < 0 || r.Mode == s.mode)
}

// pass brings the rows and documents of the scopes (rel directories, walked recursively) of f in line with the disk.
func (m *Manager) pass(ctx context.Context, f *folder, scopes []string) {
	defer func() {
		m.mu.Lock()
		m.passing = false
		m.mu.Unlock()
	}()
	m.mu.Lock()
	f.state = StateScanning
	m.mu.Unlock()
	m.status(f)
	state, pending, err := m.sync(ctx, f, scopes)
	errText := ""
	if err != nil && ctx.Err() == nil {
		errText = err.Error()
		m.o.Log.Warn("watch: pass", "folder", f.Path, "err", err)
	}
	if ctx.Err() != nil {
		return
	}
	full := len(scopes) == 1 && scopes[0] == ""
	var at time.Time
	if full && state == StateWatching {
		at = time.Now()
	}
	if serr := m.kb.SetWatchScanned(context.WithoutCancel(ctx), f.ID, at, errText); serr != nil {
		m.o.Log.Warn("watch: record pass", "folder", f.Path, "err", serr)
	}
	counts, cerr := m.folder(context.WithoutCancel(ctx), f.ID)
	m.mu.Lock()
	if cerr == nil {
		f.Files, f.Documents = counts.Files, counts.Documents
	}
	f.state, f.pending, f.lastErr = state, pending, errText
	if !at.IsZero() {
		f.ScannedAt = at
	}
	m.mu.Unlock()
	m.status(f)
}

// sync is one pass; it returns the folder's state, the files left waiting, and the pass's error (the first one;
// the pass goes on past a bad file).
func (m *Manager) sync(ctx context.Context, f *folder, scopes []string) (State, int, error) {
	root := f.Path
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		// An unmounted drive looks like an emptied folder: its documents stay until it is back or unwatched.
		// Its watches go even though the folder is still watched: the folder that comes back is a new directory,
		// and needs watches of its own.
		m.mu.Lock()
		m.dropWatches(root, nil)
		m.mu.Unlock()
		return StateMissing, 0, fmt.Errorf("%s: folder not found; its documents are kept until it is back or no longer watched", root)
	}
	p := &syncPass{m: m, f: f, root: root}
	disk := map[string]stat{}
	var unreadable []string // rel directories that could not be listed: their rows are left alone
	for _, sc := range scopes {
		if hidden(sc) {
			continue
		}
		m.walk(root, sc, disk, &unreadable, p.fail)
	}
	rows, err := m.kb.WatchedFiles(ctx, f.ID)
	if err != nil {
		return StateWatching, 0, err
	}
	p.findVanished(rows, disk, scopes, unreadable)
	if toIngest := p.changes(ctx, rows, disk); len(toIngest) > 0 {
		p.ingest(ctx, toIngest, disk)
	}
	return p.apply(ctx)
}

// syncPass is what one pass over a folder gathers before it writes it down: the rows to put and to remove, the
// recorded files not found on disk, and the files still being written.
type syncPass struct {
	m        *Manager
	f        *folder
	root     string
	firstErr error
	vanished map[string]kb.WatchedFile // recorded, in scope, not on disk
	bySize   map[int64][]string        // vanished rels by size, for recognising moves
	put      []kb.WatchedFile
	remove   []string
	// unsettled counts files modified within Settle: looked at again later.
	unsettled int
}

// fail keeps the pass's first error.
func (p *syncPass) fail(err error) {
	if p.firstErr == nil {
		p.firstErr = err
	}
}

// findVanished collects the recorded files of the scopes that the walk did not find, leaving alone those under a
// directory that could not be listed.
func (p *syncPass) findVanished(rows map[string]kb.WatchedFile, disk map[string]stat, scopes, unreadable []string) {
	inScope := func(rel string) bool {
		for _, u := range unreadable {
			if within(rel, u) {
				return false
			}
		}
		for _, sc := range scopes {
			if within(rel, sc) {
				return true
			}
		}
		return false
	}
	p.vanished = map[string]kb.WatchedFile{}
	p.bySize = map[int64][]string{}
	for rel, r := range rows {
		if _, ok := disk[rel]; !ok && inScope(rel) {
			p.vanished[rel] = r
			p.bySize[r.Size] = append(p.bySize[r.Size], rel)
		}
	}
}

// changes deals with each file on disk that differs from its row: touched with the same bytes, moved from a
// vanished one, or still being written; it returns the rest, to ingest.
func (p *syncPass) changes(ctx context.Context, rows map[string]kb.WatchedFile, disk map[string]stat) []string {
	now := time.Now()
	var toIngest []string
	for _, rel := range sortedKeys(disk) {
		s := disk[rel]
		r, known := rows[rel]
		if known && s.same(r) {
			continue
		}
		abs := filepath.Join(p.root, filepath.FromSlash(rel))
		// Renames are recognised before the settle wait: a moved file is complete, and its document must not be
		// deleted by this pass while the file waits.
		if known && r.Size == s.size && p.touched(r, s, abs) {
			continue
		}
		if !known && len(p.bySize[s.size]) > 0 && p.moved(ctx, rel, s, abs) {
			continue
		}
		if p.settling(rel, s, now) {
			continue
		}
		toIngest = append(toIngest, rel)
	}
	return toIngest
}

// touched reports whether a file of the recorded size still has the recorded bytes (touched, or rewritten the
// same): its document stays and its row takes the new time and mode.
func (p *syncPass) touched(r kb.WatchedFile, s stat, abs string) bool {
	sha, err := hashFile(p.root, abs)
	if err != nil || sha != r.SHA256 {
		return false
	}
	r.MtimeNS, r.Mode = s.mtimeNS, s.mode
	p.put = append(p.put, r)
	return true
}

// moved reports whether a new file is dealt with: a vanished file of the same size and content moved here, and its
// document moves with it; or the file could not be read, which is reported.
func (p *syncPass) moved(ctx context.Context, rel string, s stat, abs string) bool {
	sha, err := hashFile(p.root, abs)
	if err != nil {
		p.fail(err)
		return true
	}
	old, ok := p.m.renamed(p.vanished, p.bySize, s.size, sha)
	if !ok {
		return false
	}
	delete(p.vanished, old.Rel)
	p.remove = append(p.remove, old.Rel)
	p.put = append(p.put, kb.WatchedFile{Rel: rel, Size: s.size, MtimeNS: s.mtimeNS, SHA256: sha, DocumentID: old.DocumentID,
		Owned: old.Owned, Mode: s.mode})
	if old.Owned && old.DocumentID != 0 {
		if err := p.m.kb.MoveDocument(ctx, old.DocumentID, filepath.Base(abs), abs); err != nil {
			p.fail(err)
		}
	}
	return true
}

// settling reports whether the file is perhaps still being written, modified within Settle: its directory is
// looked at again once it has been quiet that long. (A modification time in the future, a skewed clock, does not
// hold a file back.)
func (p *syncPass) settling(rel string, s stat, now time.Time) bool {
	age := now.Sub(time.Unix(0, s.mtimeNS))
	if age < 0 || age >= p.m.o.Settle {
		return false
	}
	p.unsettled++
	p.m.mu.Lock()
	p.m.markLocked(p.f, path.Dir("/" + rel)[1:], now.Add(p.m.o.Settle-age+10*time.Millisecond))
	p.m.mu.Unlock()
	return true
}

// ingest adds the files to the folder's collection, counting them down in the folder's status as each finishes,
// and records a row for each file that it read.
func (p *syncPass) ingest(ctx context.Context, toIngest []string, disk map[string]stat) {
	m, f := p.m, p.f
	m.mu.Lock()
	f.pending = len(toIngest) + p.unsettled
	m.mu.Unlock()
	m.status(f)
	paths := make([]string, len(toIngest))
	for i, rel := range toIngest {
		paths[i] = filepath.Join(p.root, filepath.FromSlash(rel))
	}
	if m.beforeIngest != nil {
		m.beforeIngest(paths)
	}
	results, err := m.in.AddFound(ctx, ingest.Request{Collection: f.Collection, Paths: paths,
		Watched: &ingest.Watched{FolderID: f.ID, Root: p.root}}, func(pr ingest.Progress) {
		switch pr.Stage {
		case ingest.StageDone, ingest.StageFailed, ingest.StageExists, ingest.StageSkipped:
			m.mu.Lock()
			if f.pending > p.unsettled {
				f.pending--
			}
			m.mu.Unlock()
			m.status(f)
		}
		if m.o.Progress != nil {
			m.o.Progress(pr)
		}
	})
	if err != nil && ctx.Err() == nil {
		p.fail(err)
	}
	for i, r := range results {
		p.ingested(toIngest[i], disk[toIngest[i]], r)
	}
}

// ingested records the row of one ingested file: a skipped file's without a document, so that it is tried again
// only when it changes; a document's with it, owned when the ingest created it. A file with neither is tried again
// at the next pass that sees it.
func (p *syncPass) ingested(rel string, s stat, r ingest.Result) {
	if !r.ModTime.IsZero() {
		// What was read: the file as opened, which may be newer than the walk saw.
		s.size, s.mtimeNS = r.Size, r.ModTime.UnixNano()
	}
	switch {
	case r.Skipped:
		p.put = append(p.put, kb.WatchedFile{Rel: rel, Size: s.size, MtimeNS: s.mtimeNS, Mode: s.mode})
		if r.Error != "" {
			p.fail(errors.New(r.Error)) // unreadable: reported once, tried again when it changes
		}
	case r.Document.ID != 0:
		// The ingest recorded a document it created as this file's when it created it (so a crash cannot
		// leave it unowned); the row is written again here with what the pass knows.
		p.put = append(p.put, kb.WatchedFile{Rel: rel, Size: s.size, MtimeNS: s.mtimeNS, SHA256: r.Document.SHA256,
			DocumentID: r.Document.ID, Owned: !r.Existed, Mode: s.mode})
		if r.Error != "" && r.Document.Status == kb.StatusFailed && !r.Existed {
			p.fail(errors.New(r.Error))
		}
	case r.Error != "":
		p.fail(errors.New(r.Error))
	}
}

// apply writes the pass's rows, the vanished files' removed, and deletes the documents they released.
func (p *syncPass) apply(ctx context.Context) (State, int, error) {
	m, f := p.m, p.f
	for rel := range p.vanished {
		p.remove = append(p.remove, rel)
	}
	// Recorded even when the pass is being cancelled: the documents exist, and a resume finishes them.
	rctx := context.WithoutCancel(ctx)
	if !m.kb.WatchedFolderExists(rctx, f.ID) {
		// The folder stopped being watched during the pass (here or by another process): the removal journalled
		// what the folder owned, including what this pass created before it (later ones could not be created).
		m.deleteDocuments(rctx, m.pendingDeletions(rctx))
		return StateIdle, 0, nil
	}
	// The documents released are journalled in the same transaction, and deleted below; a crash in between leaves
	// them for the next start.
	if _, err := m.kb.ApplyWatchedFiles(rctx, f.ID, p.remove, p.put); err != nil {
		return StateWatching, p.unsettled, err
	}
	// The journal also holds the older versions of changed files, released when their new document was created.
	gone := m.pendingDeletions(rctx)
	if m.beforeDelete != nil && len(gone) > 0 && m.beforeDelete(gone) {
		return StateWatching, p.unsettled, p.firstErr // a test's crash: the deletions are left journalled
	}
	m.deleteDocuments(rctx, gone)
	return StateWatching, p.unsettled, p.firstErr
}

// dropWatches drops the notification watches of dir and below but those in keep (under m.mu).
func (m *Manager) dropWatches(dir string, keep map[string]bool) {
	for d := range m.dirs {
		if (d == dir || strings.HasPrefix(d, dir+string(filepath.Separator))) && !keep[d] {
			if m.fsw != nil {
				_ = m.fsw.Remove(d)
			}
			delete(m.dirs, d)
		}
	}
}

func (m *Manager) pendingDeletions(ctx context.Context) []int64 {
	ids, err := m.kb.PendingDeletions(ctx)
	if err != nil {
		m.o.Log.Warn("watch: pending deletions", "err", err)
	}
	return ids
}

// renamed finds the vanished row of this size and content.
func (m *Manager) renamed(vanished map[string]kb.WatchedFile, bySize map[int64][]string, size int64, sha string) (kb.WatchedFile, bool) {
	for i, rel := range bySize[size] {
		r, ok := vanished[rel]
		if ok && r.SHA256 == sha && sha != "" {
			bySize[size] = append(bySize[size][:i:i], bySize[size][i+1:]...)
			return r, true
		}
	}
	return kb.WatchedFile{}, false
}

// walk lists the regular files under scope into disk and keeps a notification watch on every directory it visits.
func (m *Manager) walk(root, scope string, disk map[string]stat, unreadable *[]string, fail func(error)) {
	start := filepath.Join(root, filepath.FromSlash(scope))
	walkStart := start
	if lst, err := os.Lstat(start); err == nil && lst.Mode()&fs.ModeSymlink != 0 && scope == "" {
		// A folder watched through a link (a person chose it): walk what it points to. WalkDir would take the link
		// itself as the root, a file, and find nothing. Links below it are never followed.
		walkStart = start + string(filepath.Separator)
	}
	seen := map[string]bool{}
	_ = filepath.WalkDir(walkStart, func(p string, d fs.DirEntry, err error) error {
		if p == walkStart {
			p = start
		}
		rel, _ := relOf(root, p)
		if err != nil {
			if p == start && errors.Is(err, fs.ErrNotExist) {
				return nil // the scope itself was removed: its rows vanish
			}
			if d == nil || d.IsDir() {
				*unreadable = append(*unreadable, rel)
				fail(fmt.Errorf("%s: %w", p, err))
				return filepath.SkipDir
			}
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && m.excluded(p) {
			return filepath.SkipDir
		}
		if d.IsDir() {
			seen[p] = true
			m.mu.Lock()
			werr := m.watchDir(p)
			m.mu.Unlock()
			if werr != nil {
				m.o.Log.Warn("watch: notifications off for a folder (the periodic rescan still covers it)", "err", werr)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone since it was listed
		}
		disk[rel] = stat{size: info.Size(), mtimeNS: info.ModTime().UnixNano(), mode: int64(info.Mode().Perm())}
		return nil
	})
	// Directories gone from under the scope lose their watch, so one made again with the same name gets a new one.
	m.mu.Lock()
	m.dropWatches(start, seen)
	m.mu.Unlock()
}

// excluded reports whether dir is one of Options.Exclude.
func (m *Manager) excluded(dir string) bool {
	for _, x := range m.o.Exclude {
		if filepath.Clean(x) == dir {
			return true
		}
	}
	return false
}

// hidden reports whether a rel path has a component starting with a dot (skipped, as by `proofglass add`).
func hidden(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if strings.HasPrefix(c, ".") {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]stat) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func hashFile(root, p string) (string, error) {
	f, _, err := regularfile.OpenBeneath(root, p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
