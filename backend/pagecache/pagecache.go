// Package pagecache keeps the page images that VRAG's clients open by path: one JPEG per retrieval unit, named as
// VRAG names its corpus ({document stem}_{1-based page}.jpg), keyed by content, bounded in size with
// least-recently-used eviction that spares every file handed out within its lease.
package pagecache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"proofglass/backend/atomicfile"
)

// Key names one page image by content: the same document bytes, page and resolution give the same file, and a
// different document never does, whatever ids the database hands out.
type Key struct {
	Collection string // the collection's name: one folder per collection
	SHA256     string // the document's content hash
	Name       string // the document's file name; its stem names the file
	Page       int    // 1-based page, image (1) or clip number
	DPI        int    // render resolution of a PDF page; 0 for stored pixels (images, video frames)
}

// Layout: DIR/<collection>/<sha256>-<dpi>dpi/<stem>_<page>.jpg (or <sha256>-raw for stored pixels). The document's
// hash in the folder keeps two documents with one stem apart and makes a stale file impossible to serve.

// Dir is the folder of a key's document inside root.
func (k Key) Dir(root string) string {
	res := "raw"
	if k.DPI > 0 {
		res = strconv.Itoa(k.DPI) + "dpi"
	}
	return filepath.Join(root, SafeName(k.Collection), k.SHA256+"-"+res)
}

// File is VRAG's file name for the key: the document's VRAG stem (see Stem), "_", the 1-based page, ".jpg".
func (k Key) File() string { return FileName(k.Name, k.DPI > 0, k.Page) }

// NameMax is the longest file name, in bytes, that the file systems Proofglass runs on accept (atomicfile's).
const NameMax = atomicfile.NameMax

// Stem is VRAG's stem of a document name. A PDF's is the text before the first ".pdf", exactly as VRAG-RL's reward
// and data pipeline compute it (file_name.split('.pdf')[0]: case-sensitive, so "report.PDF" keeps its whole name and
// "a.pdf.backup.pdf" is "a"); any other file keeps its name without its last extension. Only what no file name may
// hold is replaced (see invalidNameRune); the stem is not cut here (FileName cuts it where a file name must be).
func Stem(name string, isPDF bool) string {
	var s string
	if isPDF {
		s, _, _ = strings.Cut(name, ".pdf")
	} else {
		s = strings.TrimSuffix(name, filepath.Ext(name))
	}
	var b strings.Builder
	for _, r := range s {
		if invalidNameRune(r) {
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// PageName is VRAG's name of a page, {stem}_{page}, as its reward's golden list writes it
// (f'{file_name.split(".pdf")[0]}_{page}'): the page file's name without ".jpg", unless FileName had to cut the stem.
func PageName(docName string, isPDF bool, page int) string {
	return Stem(docName, isPDF) + "_" + strconv.Itoa(page)
}

// FileName is the page file's name, {stem}_{page}.jpg, its stem cut (at a character boundary) only when the whole
// name would be over NameMax bytes: the page suffix is always kept, so two pages never share a name.
func FileName(docName string, isPDF bool, page int) string {
	return fileName(docName, isPDF, page, "", 0)
}

// FileNameIn is FileName for a file in dir: where the platform bounds a whole path (Windows: MaxPath UTF-16
// characters, past which most programs cannot open a file), the stem is cut further so that dir, a separator and
// the name fit; the page suffix is always kept.
func FileNameIn(dir, docName string, isPDF bool, page int) string {
	return fileName(docName, isPDF, page, dir, MaxPath)
}

func fileName(docName string, isPDF bool, page int, dir string, maxPath int) string {
	suffix := "_" + strconv.Itoa(page) + ".jpg"
	stem := Stem(docName, isPDF)
	if len(stem)+len(suffix) > NameMax {
		cut := NameMax - len(suffix)
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		stem = stem[:cut]
	}
	if maxPath > 0 {
		room := maxPath - utf16Len(absOr(dir)) - 1 - utf16Len(suffix)
		for len(stem) > 0 && utf16Len(stem) > max(room, 0) {
			_, n := utf8.DecodeLastRuneInString(stem)
			stem = stem[:len(stem)-n]
		}
	}
	return stem + suffix
}

// utf16Len is how many UTF-16 code units s is: the unit Windows counts paths in.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// SafeName makes s one harmless path element: separators and control characters become "_", it is cut to 180
// bytes, and "", "." or ".." become "_".
func SafeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '/' || r == '\\' || r == 0 || unicode.IsControl(r) || r == utf8.RuneError {
			r = '_'
		}
		if b.Len()+utf8.RuneLen(r) > 180 {
			break
		}
		b.WriteRune(r)
	}
	out := b.String()
	if out == "" || out == "." || out == ".." {
		return "_"
	}
	return out
}

// Cache is the page image folder. It is safe for concurrent use; other processes may add files too (they are
// counted when the cache is next loaded).
//
// A file handed out (Get, Put) is leased: it is not evicted until Lease has passed since it was last handed out,
// whatever the cap, because a client such as VRAG-RL's rollout opens it again turns later (a crop of the page it was
// shown). A file's modification time records its last hand-out, so a lease outlives a restart and binds another
// process's cache too. Files stored ahead of requests (Add) are not leased.
type Cache struct {
	root  string
	max   int64
	lease time.Duration
	now   func() time.Time
	group bool

	mu      sync.Mutex
	loaded  bool
	entries map[string]*entry // by path
	total   int64
}

type entry struct {
	size   int64
	used   time.Time // last stored or handed out: the least recently used go first
	leased time.Time // last handed out
}

// DefaultMaxBytes is the size cap when the setting is 0.
const DefaultMaxBytes = 2 << 30

// DefaultLease is how long a handed-out file stays when the setting is 0: longer than a slow rollout turn.
const DefaultLease = 30 * time.Minute

// Options configure a Cache.
type Options struct {
	MaxBytes int64         // size cap (0 = DefaultMaxBytes); leased files may take the cache over it
	Lease    time.Duration // how long a handed-out file is kept (0 = DefaultLease)
	// GroupReadable makes files 0640 and folders 0750 instead of 0600 and 0700, so a trainer running as another
	// user of the same group can open them.
	GroupReadable bool
	Now           func() time.Time // the clock (nil = time.Now); tests move it instead of sleeping
}

// New returns the cache rooted at root.
func New(root string, o Options) *Cache {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Cache{root: root, max: o.MaxBytes, lease: o.Lease, now: o.Now, group: o.GroupReadable, entries: map[string]*entry{}}
}

// Root is the cache folder.
func (c *Cache) Root() string { return c.root }

// MaxBytes is the size cap.
func (c *Cache) MaxBytes() int64 { return c.max }

// Holds is the most page bytes the cache keeps without evicting any: eviction brings it down to 90 % of its cap.
func (c *Cache) Holds() int64 { return c.max * 9 / 10 }

// SizeMBFor is the cache size (cache.pages_mb) to set for need bytes of pages: the need plus a quarter, so that
// leased pages and eviction's 90 % mark leave every page in.
func SizeMBFor(need int64) int64 { return (need*5/4)>>20 + 1 }

// Lease is how long a handed-out file is kept.
func (c *Cache) Lease() time.Duration { return c.lease }

// FileMode and DirMode are the permissions of the cache's files and folders.
func (c *Cache) FileMode() fs.FileMode { return FileMode(c.group) }
func (c *Cache) DirMode() fs.FileMode  { return DirMode(c.group) }

// FileMode is a page file's permission: owner only, or group-readable.
func FileMode(group bool) fs.FileMode {
	if group {
		return 0o640
	}
	return 0o600
}

// DirMode is a page folder's permission: owner only, or group-readable.
func DirMode(group bool) fs.FileMode {
	if group {
		return 0o750
	}
	return 0o700
}

// Path is where a key's file lives (whether or not it exists).
func (c *Cache) Path(k Key) string {
	dir := k.Dir(c.root)
	return filepath.Join(dir, FileNameIn(dir, k.Name, k.DPI > 0, k.Page))
}

// absOr is dir made absolute (the path a file's length is counted on), or dir as it is when that fails.
func absOr(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}

// load indexes the files already on disk, their modification time standing for their last use and hand-out.
// Called with mu held.
func (c *Cache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	_ = filepath.WalkDir(c.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jpg") {
			return nil
		}
		if info, err := d.Info(); err == nil {
			c.entries[path] = &entry{size: info.Size(), used: info.ModTime(), leased: info.ModTime()}
			c.total += info.Size()
		}
		return nil
	})
}

// touchEvery bounds how often a hand-out rewrites the file's time (a system call per file per request otherwise).
const touchEvery = time.Minute

// Get returns the key's file when it is there and hands it out (leases it).
func (c *Cache) Get(k Key) (string, bool) {
	path := c.Path(k)
	info, err := os.Stat(path)
	if err != nil || info.Size() == 0 {
		return "", false
	}
	now := c.now()
	c.mu.Lock()
	c.load()
	e, ok := c.entries[path]
	if !ok {
		e = &entry{size: info.Size(), leased: info.ModTime()}
		c.entries[path] = e
		c.total += e.size
	}
	touch := now.Sub(e.leased) > touchEvery
	e.used, e.leased = now, now
	c.mu.Unlock()
	if touch { // the file's time carries the lease across restarts and to other processes
		_ = os.Chtimes(path, now, now)
	}
	return path, true
}

// Has reports whether the key's file is there, without handing it out.
func (c *Cache) Has(k Key) bool {
	info, err := os.Stat(c.Path(k))
	return err == nil && info.Size() > 0
}

// FileSize is the size of the key's file (0 when it is absent).
func (c *Cache) FileSize(k Key) int64 {
	info, err := os.Stat(c.Path(k))
	if err != nil {
		return 0
	}
	return info.Size()
}

// Put stores data as the key's file and hands it out (leases it); see store.
func (c *Cache) Put(k Key, data []byte) (string, error) { return c.store(k, data, true) }

// Add stores data as the key's file without handing it out: a page rendered ahead of requests, which the least
// recently used order may evict like any other.
func (c *Cache) Add(k Key, data []byte) (string, error) { return c.store(k, data, false) }

// store writes the file atomically (a reader sees the whole file or none) and evicts the least recently used files
// that are not leased while the cache is over its cap.
func (c *Cache) store(k Key, data []byte, handOut bool) (string, error) {
	path := c.Path(k)
	if err := os.MkdirAll(filepath.Dir(path), c.DirMode()); err != nil {
		return "", fmt.Errorf("page cache: %w", err)
	}
	if err := atomicfile.Write(path, data, c.FileMode()); err != nil {
		return "", fmt.Errorf("page cache: %w", err)
	}
	// The file's time is its lease for a later process: now when handed out, else already expired.
	now := c.now()
	stamp := now
	if !handOut {
		stamp = now.Add(-c.lease - time.Second)
	}
	_ = os.Chtimes(path, stamp, stamp)
	c.mu.Lock()
	c.load()
	if old, ok := c.entries[path]; ok {
		c.total -= old.size
	}
	e := &entry{size: int64(len(data)), used: now}
	if handOut {
		e.leased = now
	}
	c.entries[path] = e
	c.total += int64(len(data))
	victims := c.evictLocked(now)
	c.mu.Unlock()
	for _, v := range victims {
		c.removeVictim(v, now)
	}
	return path, nil
}

// evictLocked picks least recently used files that are not leased until the cache is at 90% of its cap.
func (c *Cache) evictLocked(now time.Time) []string {
	if c.total <= c.max {
		return nil
	}
	type cand struct {
		path string
		e    *entry
	}
	var all []cand
	cutoff := now.Add(-c.lease)
	for p, e := range c.entries {
		if !e.leased.After(cutoff) {
			all = append(all, cand{p, e})
		}
	}
	slices.SortFunc(all, func(a, b cand) int { return a.e.used.Compare(b.e.used) })
	var out []string
	for _, v := range all {
		if c.total <= c.Holds() {
			break
		}
		delete(c.entries, v.path)
		c.total -= v.e.size
		out = append(out, v.path)
	}
	return out
}

// removeVictim deletes an evicted file unless another process handed it out within the lease (its time says so):
// then it is counted again and kept.
func (c *Cache) removeVictim(path string, now time.Time) {
	if info, err := os.Stat(path); err == nil && now.Sub(info.ModTime()) < c.lease {
		c.mu.Lock()
		if _, ok := c.entries[path]; !ok {
			c.entries[path] = &entry{size: info.Size(), used: info.ModTime(), leased: info.ModTime()}
			c.total += info.Size()
		}
		c.mu.Unlock()
		return
	}
	_ = os.Remove(path)
	removeEmptyParents(c.root, filepath.Dir(path))
}

// Size is the bytes and files the cache holds.
func (c *Cache) Size() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	return c.total, len(c.entries)
}

// PurgeDocument removes every file of one document in one collection (all resolutions).
func (c *Cache) PurgeDocument(collection, sha256 string) int {
	dir := filepath.Join(c.root, SafeName(collection))
	matches, _ := filepath.Glob(filepath.Join(dir, sha256+"-*"))
	n := 0
	for _, m := range matches {
		n += c.removeDir(m)
	}
	removeEmptyParents(c.root, dir)
	return n
}

func (c *Cache) removeDir(dir string) int {
	files, _ := os.ReadDir(dir)
	c.mu.Lock()
	for _, f := range files {
		p := filepath.Join(dir, f.Name())
		if e, ok := c.entries[p]; ok {
			c.total -= e.size
			delete(c.entries, p)
		}
	}
	c.mu.Unlock()
	_ = os.RemoveAll(dir)
	return len(files)
}

// Stale is a folder or file of the cache that no live document owns.
type Stale struct {
	Path   string
	Reason string
}

// Scan lists what does not belong: document folders whose (collection folder, hash) live does not know (the folder
// is SafeName of the collection's name), and files that
// follow no layout of this cache (such as older versions' unit-<id>.jpg, named by reusable ids).
func (c *Cache) Scan(live func(collection, sha256 string) bool) ([]Stale, error) {
	var out []Stale
	colls, err := os.ReadDir(c.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("page cache %s: %w", c.root, err)
	}
	for _, cd := range colls {
		cpath := filepath.Join(c.root, cd.Name())
		if !cd.IsDir() {
			out = append(out, Stale{cpath, "not in the collection/document layout (left by an older Proofglass)"})
			continue
		}
		docs, err := os.ReadDir(cpath)
		if err != nil {
			return out, fmt.Errorf("page cache %s: %w", cpath, err)
		}
		for _, dd := range docs {
			dpath := filepath.Join(cpath, dd.Name())
			sha, _, ok := strings.Cut(dd.Name(), "-")
			switch {
			case !dd.IsDir() || !ok || len(sha) != 64:
				out = append(out, Stale{dpath, "not in the collection/document layout"})
			case !live(cd.Name(), sha):
				out = append(out, Stale{dpath, "its document is no longer in collection " + cd.Name()})
			}
		}
	}
	return out, nil
}

// Remove deletes what Scan found.
func (c *Cache) Remove(stale []Stale) int {
	n := 0
	for _, s := range stale {
		info, err := os.Stat(s.Path)
		if err != nil {
			continue
		}
		if info.IsDir() {
			n += c.removeDir(s.Path)
		} else if os.Remove(s.Path) == nil {
			c.mu.Lock()
			if e, ok := c.entries[s.Path]; ok {
				c.total -= e.size
				delete(c.entries, s.Path)
			}
			c.mu.Unlock()
			n++
		}
		removeEmptyParents(c.root, filepath.Dir(s.Path))
	}
	return n
}

// removeEmptyParents removes dir and its parents up to (not including) root while they are empty.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// Live is the set of (collection folder, hash) pairs that may keep files, for Scan.
type Live map[[2]string]bool

// Add records a live document of a collection.
func (l Live) Add(collection, sha256 string) { l[[2]string{SafeName(collection), sha256}] = true }

// Has is Scan's live function.
func (l Live) Has(dir, sha256 string) bool { return l[[2]string{dir, sha256}] }

// Usage is what the files of one collection folder take.
type Usage struct {
	Files int
	Bytes int64
}

// UsageByCollection measures the files on disk by collection folder (SafeName of the collection's name).
func (c *Cache) UsageByCollection() map[string]Usage {
	out := map[string]Usage{}
	_ = filepath.WalkDir(c.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jpg") {
			return nil
		}
		rel, err := filepath.Rel(c.root, path)
		if err != nil {
			return nil
		}
		coll, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if info, err := d.Info(); err == nil {
			u := out[coll]
			u.Files++
			u.Bytes += info.Size()
			out[coll] = u
		}
		return nil
	})
	return out
}
