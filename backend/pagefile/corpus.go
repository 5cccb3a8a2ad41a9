package pagefile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"proofglass/backend/atomicfile"
	"proofglass/backend/kb"
	"proofglass/backend/pagecache"
)

// A corpus folder is VRAG's own layout, DIR/img/{stem}_{page}.jpg (flat, 1-based pages, 200 DPI), so VRAG's
// ingestion (search_engine/ingestion.py reads search_engine/corpus/img) indexes a library prepared here, and a server
// answering with paths inside it matches scripts that compare paths with ./search_engine/corpus/img/…. The folder also
// holds ManifestName, which says which document and page each file shows: a file is reused only when it still shows
// the same content, and a name two documents share is given to the first only.

// ManifestName is the corpus folder's record of its files.
const ManifestName = "proofglass-corpus.json"

// Corpus is a corpus folder.
type Corpus struct {
	dir   string // as given: paths handed out keep its spelling ("./search_engine/corpus" stays relative)
	group bool

	mu    sync.Mutex
	files map[string]source // by file name
	dirty bool
}

// source is what one corpus file shows.
type source struct {
	SHA256     string `json:"sha256"`
	Page       int    `json:"page"`
	Document   string `json:"document"`
	Collection string `json:"collection"`
	// Name is VRAG's whole name of the page ({stem}_{page}): the file's name without ".jpg", or longer when the
	// stem was cut to fit a file name, so a client can map the file back to the page its golden list names.
	Name string `json:"name,omitempty"`
}

type manifest struct {
	Layout string            `json:"layout"`
	DPI    int               `json:"dpi"`
	Files  map[string]source `json:"files"`
}

// OpenCorpus opens (or starts) the corpus folder dir; group makes its files group-readable.
func OpenCorpus(dir string, group bool) (*Corpus, error) {
	if dir == "" {
		return nil, errors.New("corpus folder: no path given")
	}
	c := &Corpus{dir: dir, group: group, files: map[string]source{}}
	if err := os.MkdirAll(c.imgDir(), pagecache.DirMode(group)); err != nil {
		return nil, fmt.Errorf("corpus folder %s: %w", dir, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("corpus folder %s: %w", dir, err)
	default:
		var m manifest
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("corpus folder %s: %s is not Proofglass's manifest (%v): move it aside", dir, ManifestName, err)
		}
		if m.Files != nil {
			c.files = m.Files
		}
	}
	return c, nil
}

// Dir is the corpus folder as given.
func (c *Corpus) Dir() string { return c.dir }

func (c *Corpus) imgDir() string { return filepath.Join(c.dir, "img") }

// Path is the path handed out for a file name: the folder as given (a leading "./" kept, as VRAG writes its paths),
// "img", the name.
func (c *Corpus) Path(name string) string {
	p := filepath.Join(c.dir, "img", name)
	if strings.HasPrefix(c.dir, "."+string(filepath.Separator)) || strings.HasPrefix(c.dir, "./") {
		p = "." + string(filepath.Separator) + p
	}
	return p
}

// Save writes the manifest when files were added since the last save.
func (c *Corpus) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return nil
	}
	b, err := json.MarshalIndent(manifest{Layout: "img/{stem}_{page}.jpg", DPI: DPI, Files: c.files}, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(c.dir, ManifestName), b, pagecache.FileMode(c.group)); err != nil {
		return fmt.Errorf("corpus folder %s: %w", c.dir, err)
	}
	c.dirty = false
	return nil
}

// claim decides a unit's file: have (the file is there and shows it), ok (the name is its own, or free), and the
// owner when another document holds the name.
func (c *Corpus) claim(it kb.PageItem) (name string, have, ok bool, owner source) {
	k := Key(it)
	name = pagecache.FileNameIn(c.imgDir(), k.Name, k.DPI > 0, k.Page)
	want := source{SHA256: it.SHA256, Page: it.Ordinal, Document: it.DocName, Collection: it.Collection, Name: PageName(it)}
	c.mu.Lock()
	defer c.mu.Unlock()
	got, known := c.files[name]
	if known && (got.SHA256 != want.SHA256 || got.Page != want.Page) {
		return name, false, false, got
	}
	if known {
		if info, err := os.Stat(filepath.Join(c.imgDir(), name)); err == nil && info.Size() > 0 {
			if got.Name != want.Name { // recorded before names were
				c.files[name], c.dirty = want, true
			}
			return name, true, true, want
		}
	}
	c.files[name] = want // reserved now, so a second document with this stem cannot take it meanwhile
	c.dirty = true
	return name, false, true, source{}
}

// release gives a name back after its file could not be made.
func (c *Corpus) release(name string) {
	c.mu.Lock()
	delete(c.files, name)
	c.dirty = true
	c.mu.Unlock()
}

// ErrNameTaken is a unit whose VRAG file name another document's page already has in the corpus folder.
var ErrNameTaken = errors.New("file name taken")

// CorpusFile makes sure one unit's file is in the corpus folder (copied from the page cache when there, else rendered)
// and returns the path to hand out; made says whether this call wrote it.
func (m *Maker) CorpusFile(ctx context.Context, c *Corpus, it kb.PageItem) (path string, made bool, size int64, err error) {
	name, have, ok, owner := c.claim(it)
	if !ok {
		return "", false, 0, fmt.Errorf("%s page %d: %w: %s is page %d of %s (collection %s); rename one of them",
			it.DocName, it.Ordinal, ErrNameTaken, name, owner.Page, owner.Document, owner.Collection)
	}
	if have {
		return c.Path(name), false, 0, nil
	}
	var data []byte
	if m.pages != nil && m.pages.Has(Key(it)) {
		data, err = os.ReadFile(m.pages.Path(Key(it)))
	}
	if len(data) == 0 {
		data, err = m.Data(ctx, it)
	}
	if err == nil {
		err = atomicfile.Write(filepath.Join(c.imgDir(), name), data, pagecache.FileMode(c.group))
	}
	if err != nil {
		c.release(name)
		return "", false, 0, err
	}
	return c.Path(name), true, int64(len(data)), nil
}

// CorpusFiles is Files for a corpus folder: every unit's file in the folder, made in parallel when missing. A unit
// whose name another document holds is returned as a failure (ErrNameTaken) so the caller can fall back.
func (m *Maker) CorpusFiles(ctx context.Context, c *Corpus, its []kb.PageItem) (map[int64]string, map[int64]error) {
	paths := make(map[int64]string, len(its))
	fails := map[int64]error{}
	eachPath(ctx, its, m.Workers(), paths, fails, func(it kb.PageItem) (string, error) {
		p, _, _, err := m.CorpusFile(ctx, c, it)
		return p, err
	})
	return paths, fails
}

// Export writes the ready documents of one collection into the corpus folder in VRAG's layout, in parallel; files
// already there for the same content are skipped, so an interrupted export resumes. The manifest is saved every few
// seconds and at the end.
func (m *Maker) Export(ctx context.Context, c *Corpus, collection string, progress func(Progress)) (Report, error) {
	if _, err := m.kb.Docs.CollectionByName(ctx, collection); err != nil {
		return Report{}, fmt.Errorf("export corpus: collection %q: %w", collection, err)
	}
	its, err := m.kb.Search.ReadyPageItems(ctx, []string{collection}, -1)
	if err != nil {
		return Report{}, fmt.Errorf("export corpus: %w", err)
	}
	start := time.Now()
	last := start
	var mu sync.Mutex
	rep := Report{}
	rep.Total = len(its)
	each(ctx, its, m.Workers(), func(it kb.PageItem) {
		_, made, size, err := m.CorpusFile(ctx, c, it)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && ctx.Err() != nil {
			return
		}
		rep.Done++
		switch {
		case err != nil:
			rep.Failed++
			if len(rep.Errors) < maxErrors {
				rep.Errors = append(rep.Errors, err)
			}
		case made:
			rep.Made++
			rep.Bytes += size
		default:
			rep.Skipped++
		}
		rep.Elapsed = time.Since(start)
		if time.Since(last) >= progressEvery {
			last = time.Now()
			_ = c.Save()
			if progress != nil {
				progress(rep.Progress)
			}
		}
	})
	rep.Elapsed = time.Since(start)
	if progress != nil {
		progress(rep.Progress)
	}
	if err := c.Save(); err != nil {
		return rep, err
	}
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("export corpus: %w", err)
	}
	return rep, nil
}
