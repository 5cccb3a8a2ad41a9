package desktop

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"

	"proofglass/backend/buildinfo"
	"proofglass/backend/config"
	"proofglass/backend/filegate"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/sample"
	"proofglass/backend/search"
)

// LibraryService is the library screen: collections, their documents and pages, blobs and page images, search,
// adding (files, folders, the sample library), retrying and deleting documents. Ingest progress arrives as
// ingest:progress events; and collections exported to and imported from library archives.
type LibraryService struct {
	c        *core
	archives filegate.Gate // the one archive path the last save dialog returned
}

// Status is what the shell shows about the running app.
type Status struct {
	Version       string `json:"version"`
	DataDir       string `json:"data_dir"`
	SchemaVersion int    `json:"schema_version"`
	Collections   int    `json:"collections"`
	Documents     int    `json:"documents"`
}

// Status reports version, data directory and knowledge-base counts.
func (s *LibraryService) Status() (Status, error) {
	c := s.c
	if err := c.ready(); err != nil {
		return Status{}, err
	}
	cs, err := c.lib.KB.Docs.Collections(c.ctx)
	if err != nil {
		return Status{}, err
	}
	st := Status{Version: buildinfo.Get().Version, DataDir: c.lib.Config.DataDir, Collections: len(cs)}
	st.SchemaVersion, _ = c.lib.KB.SchemaVersionOf(c.ctx)
	for _, col := range cs {
		st.Documents += col.Documents
	}
	return st, nil
}

// Notices returns the one-time messages of this start (a Loupe library adopted), each once, for the window to show.
func (s *LibraryService) Notices() []config.Notice {
	n := config.TakeNotices()
	if n == nil {
		return []config.Notice{}
	}
	return n
}

// Collections lists the collections with their document and unit counts.
func (s *LibraryService) Collections() ([]kb.Collection, error) {
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	return s.c.lib.KB.Docs.Collections(s.c.ctx)
}

// CreateCollection makes a collection with the default (built-in) embedder, or returns the existing one.
func (s *LibraryService) CreateCollection(name string) (kb.Collection, error) {
	if err := checkName("collection", name); err != nil || strings.TrimSpace(name) == "" {
		return kb.Collection{}, fmt.Errorf("collection %q: not a valid name", clipArg(name))
	}
	if err := s.c.ready(); err != nil {
		return kb.Collection{}, err
	}
	return s.c.lib.KB.Docs.EnsureCollection(s.c.ctx, name)
}

// Documents lists a collection's documents with status and error.
func (s *LibraryService) Documents(collectionID int64) ([]kb.Document, error) {
	if err := checkID("collection", collectionID); err != nil {
		return nil, err
	}
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	return s.c.lib.KB.Docs.Documents(s.c.ctx, collectionID)
}

// DeleteDocument removes a document, its units and unshared blobs, and forgets its password (as `proofglass documents
// delete` does).
func (s *LibraryService) DeleteDocument(id int64) error {
	if err := checkID("document", id); err != nil {
		return err
	}
	if err := s.c.ready(); err != nil {
		return err
	}
	return s.c.ingester.Delete(s.c.ctx, id)
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

func pageRef(u kb.Unit) PageRef {
	return PageRef{u.ID, u.DocumentID, u.Ordinal, u.Kind, u.Width, u.Height, u.TStartMS, u.TEndMS, u.TextSource, u.ThumbBlob}
}

// Pages lists a document's units for the page grid.
func (s *LibraryService) Pages(documentID int64) ([]PageRef, error) {
	c := s.c
	if err := checkID("document", documentID); err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	// The grid is open, so the viewer comes next: open the PDF in the render worker meanwhile.
	go func() {
		if err := c.lib.WarmDocument(c.ctx, documentID); err != nil && c.ctx.Err() == nil {
			slog.Warn("warm document", "document", documentID, "err", err)
		}
	}()
	us, err := c.lib.KB.Content.UnitRefs(c.ctx, documentID)
	if err != nil {
		return nil, err
	}
	out := make([]PageRef, len(us))
	for i, u := range us {
		out[i] = pageRef(u)
	}
	return out, nil
}

// Cover returns a document's first page for its card in the library, or nil while it has none. Unlike Pages it
// neither lists every page nor opens the document for rendering: a library shows a hundred covers at once.
func (s *LibraryService) Cover(documentID int64) (*PageRef, error) {
	if err := checkID("document", documentID); err != nil {
		return nil, err
	}
	if err := s.c.ready(); err != nil {
		return nil, err
	}
	u, err := s.c.lib.KB.Content.FirstUnitRef(s.c.ctx, documentID)
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
func (s *LibraryService) Blob(hash string) (string, error) {
	if err := s.c.ready(); err != nil {
		return "", err
	}
	if !kb.ValidHash(hash) {
		return "", fmt.Errorf("blob %q: not a content hash", clipArg(hash))
	}
	b, err := s.c.lib.KB.Blobs.Get(hash)
	if err != nil {
		return "", err
	}
	return dataURL(b), nil
}

// PageImage renders a unit about width pixels wide as a data: URL (PDF pages sharp at any zoom).
func (s *LibraryService) PageImage(unitID int64, width int) (string, error) {
	if err := checkID("unit", unitID); err != nil {
		return "", err
	}
	width = clampWidth(width)
	if err := s.c.ready(); err != nil {
		return "", err
	}
	b, err := s.c.lib.PageImage(s.c.ctx, unitID, width)
	if err != nil {
		return "", err
	}
	return dataURL(b), nil
}

func dataURL(b []byte) string {
	return "data:" + http.DetectContentType(b) + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// Search runs a hybrid search over one collection ("" = all).
func (s *LibraryService) Search(query, collection string, k int) (search.Result, error) {
	return s.SearchWhere(query, collection, "", k)
}

// SearchWhere is Search over the documents whose facets pass where ("org=acme,year=2022"; "" = all).
func (s *LibraryService) SearchWhere(query, collection, where string, k int) (search.Result, error) {
	if err := checkQuery("search", query); err != nil {
		return search.Result{}, err
	}
	if err := checkFacet("where", where); err != nil {
		return search.Result{}, err
	}
	if err := checkName("collection", collection); err != nil {
		return search.Result{}, err
	}
	k = min(max(k, 0), library.MaxSearchK)
	if err := s.c.ready(); err != nil {
		return search.Result{}, err
	}
	return s.c.lib.Search(s.c.ctx, library.SearchRequest{Text: query, K: k,
		Scope: library.Scope{Collection: collection, Where: where}})
}

// addFilters are the files the add dialog offers: every format ingest reads, then each format, then all files.
// names holds the window's names for them, by format ID and "all" and "any"; a missing one is the English name.
func addFilters(names map[string]string) []FileFilter {
	var all []string
	var each []FileFilter
	for _, f := range ingest.Formats {
		pats := make([]string, len(f.Extensions))
		for i, e := range f.Extensions {
			pats[i] = "*" + e
		}
		all = append(all, pats...)
		each = append(each, FileFilter{DisplayName: dialogTitle(names[f.ID], f.Name), Pattern: strings.Join(pats, ";")})
	}
	first := FileFilter{DisplayName: dialogTitle(names["all"], "Documents, images and videos"), Pattern: strings.Join(all, ";")}
	return append(append([]FileFilter{first}, each...), FileFilter{DisplayName: dialogTitle(names["any"], "All files"), Pattern: "*"})
}

// maxFilterNames bounds the names PickFiles takes: one per format, "all" and "any", with room to spare.
const maxFilterNames = 24

// PickFiles opens the system file dialog for documents to add, titled and its file types named in the window's
// language (filterNames by format ID — pdf, word, …, image, video — and "all" and "any"; nil: English).
func (s *LibraryService) PickFiles(title string, filterNames map[string]string) ([]string, error) {
	if len(filterNames) > maxFilterNames {
		return nil, fmt.Errorf("file type names: %d, at most %d", len(filterNames), maxFilterNames)
	}
	ui := s.c.window()
	if ui == nil {
		return nil, errNoWindow
	}
	return ui.OpenFiles(dialogTitle(title, "Add documents"), addFilters(filterNames))
}

// PickFolder opens the system dialog for a folder to add, titled in the window's language.
func (s *LibraryService) PickFolder(title string) (string, error) {
	ui := s.c.window()
	if ui == nil {
		return "", errNoWindow
	}
	return ui.OpenFolder(dialogTitle(title, "Add a folder"))
}

var errNoWindow = errors.New("the window is still starting")

// AddPaths ingests files and folders into a collection in the background; progress arrives as ingest:progress events.
func (s *LibraryService) AddPaths(collection string, paths []string) error {
	c := s.c
	if err := checkName("collection", collection); err != nil {
		return err
	}
	if err := checkPaths(paths); err != nil {
		return err
	}
	if err := c.ready(); err != nil {
		return err
	}
	go func() {
		if _, err := c.ingester.Add(c.ctx, collection, paths, c.emitProgress); err != nil && c.ctx.Err() == nil {
			c.emitProgress(ingest.Progress{Name: fmt.Sprint(paths), Stage: ingest.StageFailed, Error: err.Error()})
		}
	}()
	return nil
}

// AddSampleLibrary adds the bundled public-domain samples (a text PDF, a scanned page, an image, a film clip) to a
// collection ("" = Samples), as AddPaths does.
func (s *LibraryService) AddSampleLibrary(collection string) error {
	if err := checkName("collection", collection); err != nil {
		return err
	}
	if err := s.c.ready(); err != nil {
		return err
	}
	paths, err := sample.Extract(filepath.Join(s.c.lib.Config.DataDir, "samples"))
	if err != nil {
		return err
	}
	if collection == "" {
		collection = sample.Collection
	}
	return s.AddPaths(collection, paths)
}

// RetryDocument ingests a failed document again from its stored original, with a PDF password when one is given.
func (s *LibraryService) RetryDocument(id int64, password string) error {
	c := s.c
	if err := checkID("document", id); err != nil {
		return err
	}
	if err := checkPassword(password); err != nil {
		return err
	}
	if err := c.ready(); err != nil {
		return err
	}
	go func() {
		if _, err := c.ingester.Retry(c.ctx, id, password, c.emitProgress); err != nil && c.ctx.Err() == nil {
			c.emitProgress(ingest.Progress{DocumentID: id, Stage: ingest.StageFailed, Error: err.Error()})
		}
	}()
	return nil
}
