// Package pagecache keeps the page images that VRAG's clients open by path: one JPEG per retrieval unit, named as
// VRAG names its corpus ({document stem}_{1-based page}.jpg), keyed by content, bounded in size with
// least-recently-used eviction.
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

// File is VRAG's file name for the key: the document's name without its extension, "_", the 1-based page, ".jpg".
func (k Key) File() string { return Stem(k.Name) + "_" + strconv.Itoa(k.Page) + ".jpg" }

// Stem is a document name without its extension, made safe as one path element.
func Stem(name string) string {
	s := strings.TrimSuffix(name, filepath.Ext(name))
	return SafeName(s)
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
type Cache struct {
	root string
	max  int64
	// keep protects files handed out recently from eviction: a client opens them just after the response.
	keep time.Duration

	mu      sync.Mutex
	loaded  bool
	entries map[string]*entry // by path
	total   int64
}

type entry struct {
	size int64
	used time.Time
}

// DefaultMaxBytes is the size cap when the setting is 0.
const DefaultMaxBytes = 2 << 30

// New returns the cache rooted at root holding at most maxBytes (0 = DefaultMaxBytes); files used in the last
// minute are not evicted, so the cap can be exceeded by one large response's pages.
func New(root string, maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Cache{root: root, max: maxBytes, keep: time.Minute, entries: map[string]*entry{}}
}

// Root is the cache folder.
func (c *Cache) Root() string { return c.root }

// MaxBytes is the size cap.
func (c *Cache) MaxBytes() int64 { return c.max }

// Path is where a key's file lives (whether or not it exists).
func (c *Cache) Path(k Key) string { return filepath.Join(k.Dir(c.root), k.File()) }

// load indexes the files already on disk, their modification time standing for their last use. Called with mu held.
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
			c.entries[path] = &entry{size: info.Size(), used: info.ModTime()}
			c.total += info.Size()
		}
		return nil
	})
}

// Get returns the key's file when it is there, marking it used.
func (c *Cache) Get(k Key) (string, bool) {
	path := c.Path(k)
	info, err := os.Stat(path)
	if err != nil || info.Size() == 0 {
		return "", false
	}
	now := time.Now()
	c.mu.Lock()
	c.load()
	e, ok := c.entries[path]
	if !ok {
		e = &entry{size: info.Size()}
		c.entries[path] = e
		c.total += e.size
	}
	stale := now.Sub(e.used) > time.Minute
	e.used = now
	c.mu.Unlock()
	if stale { // the file's time carries its last use across restarts; once a minute is enough
		_ = os.Chtimes(path, now, now)
	}
	return path, true
}

// Put stores data as the key's file (atomically: a reader sees the whole file or none) and evicts the least
// recently used files while the cache is over its cap.
func (c *Cache) Put(k Key, data []byte) (string, error) {
	path := c.Path(k)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("page cache: %w", err)
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return "", fmt.Errorf("page cache: %w", err)
	}
	c.mu.Lock()
	c.load()
	if old, ok := c.entries[path]; ok {
		c.total -= old.size
	}
	c.entries[path] = &entry{size: int64(len(data)), used: time.Now()}
	c.total += int64(len(data))
	victims := c.evictLocked()
	c.mu.Unlock()
	for _, v := range victims {
		_ = os.Remove(v)
		removeEmptyParents(c.root, filepath.Dir(v))
	}
	return path, nil
}

// evictLocked picks least recently used files until the cache is at 90% of its cap, sparing recent ones.
func (c *Cache) evictLocked() []string {
	if c.total <= c.max {
		return nil
	}
	type cand struct {
		path string
		e    *entry
	}
	var all []cand
	cutoff := time.Now().Add(-c.keep)
	for p, e := range c.entries {
		if e.used.Before(cutoff) {
			all = append(all, cand{p, e})
		}
	}
	slices.SortFunc(all, func(a, b cand) int { return a.e.used.Compare(b.e.used) })
	var out []string
	for _, v := range all {
		if c.total <= c.max*9/10 {
			break
		}
		delete(c.entries, v.path)
		c.total -= v.e.size
		out = append(out, v.path)
	}
	return out
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
