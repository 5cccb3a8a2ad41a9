// Package pagefile makes the page files VRAG's clients open (PDF pages at 200 DPI, images and video frames from
// their stored pixels): on demand into the page cache for `serve`, ahead of requests for whole collections
// (`cache warm`, `serve --prerender`), and into VRAG's own flat corpus folder (`export corpus`, `serve --corpus-dir`).
package pagefile

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image/jpeg"
	"runtime"
	"sync"

	"proofglass/backend/kb"
	"proofglass/backend/pagecache"
	"proofglass/backend/pdf"
	"proofglass/backend/vision"
)

// DPI is the resolution of page files: VRAG's corpus was made by pdf2image's default, 200 DPI.
const DPI = 200

// JPEGQuality is PIL's default JPEG quality, which VRAG's corpus and clients use.
const JPEGQuality = 75

// maxPagePixels bounds one page file (a poster-sized page is rendered below 200 DPI rather than at 60+ Mpx).
const maxPagePixels = 24 << 20

// Key is the page cache key of a unit's page file.
func Key(it kb.PageItem) pagecache.Key {
	k := pagecache.Key{Collection: it.Collection, SHA256: it.SHA256, Name: it.DocName, Page: it.Ordinal}
	if it.UnitKind == kb.UnitPage {
		k.DPI = DPI
	}
	return k
}

// PageName is VRAG's name of the unit's page, {stem}_{page} whole: what a client compares with its golden pages
// when the file's name had to be cut to fit the file system (see pagecache.PageName).
func PageName(it kb.PageItem) string {
	k := Key(it)
	return pagecache.PageName(k.Name, k.DPI > 0, k.Page)
}

// Maker renders page files with a pool of MuPDF workers, one per core by default: each pdf.Client runs one
// operation at a time, so pages render side by side instead of one after another.
type Maker struct {
	kb       *kb.KB
	pages    *pagecache.Cache
	password func(kb.Document) string
	free     chan *pdf.Renderer
	clients  []*pdf.Client
}

// New returns a Maker over a knowledge base and its page cache with workers MuPDF workers (0 = one per core);
// password gives an encrypted PDF's remembered password (nil = none). Close stops the workers.
func New(k *kb.KB, pages *pagecache.Cache, password func(kb.Document) string, workers int) *Maker {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if password == nil {
		password = func(kb.Document) string { return "" }
	}
	m := &Maker{kb: k, pages: pages, password: password, free: make(chan *pdf.Renderer, workers)}
	for range workers {
		c := pdf.NewClient(pdf.Options{}) // the worker process starts on first use
		m.clients = append(m.clients, c)
		m.free <- pdf.NewRenderer(c, nil, 4)
	}
	return m
}

// Workers is the size of the render pool.
func (m *Maker) Workers() int { return cap(m.free) }

// Pages is the page cache the Maker fills.
func (m *Maker) Pages() *pagecache.Cache { return m.pages }

// Close stops the MuPDF workers (and waits for them, so their CPU time is accounted to this process).
func (m *Maker) Close() {
	for _, c := range m.clients {
		c.Close()
	}
}

// Data renders one unit's page file: a PDF page at 200 DPI by MuPDF, an image or a video frame from its stored
// pixels. The JPEG says 200 DPI in its JFIF header, as pdf2image's files do.
func (m *Maker) Data(ctx context.Context, it kb.PageItem) ([]byte, error) {
	if it.UnitKind == kb.UnitPage {
		path := it.SourcePath
		if it.Blob != "" && m.kb.Blobs.Has(it.Blob) {
			path = m.kb.Blobs.Path(it.Blob)
		}
		if path == "" {
			return nil, fmt.Errorf("%s: the original PDF is neither in the blob store nor at a source path", it.DocName)
		}
		var r *pdf.Renderer
		select {
		case r = <-m.free:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		rend, err := r.Render(ctx, path, m.password(kb.Document{SHA256: it.SHA256}), pdf.RenderRequest{
			Page: it.Ordinal - 1, DPI: DPI, Format: pdf.JPEG, Quality: JPEGQuality, MaxPixels: maxPagePixels, MIME: it.MIME})
		m.free <- r
		if err != nil {
			return nil, fmt.Errorf("render page %d of %s: %w", it.Ordinal, it.DocName, err)
		}
		return withDPI(rend.Data, int(rend.DPI+0.5)), nil
	}
	h := it.ImageBlob
	if h == "" {
		h = it.ThumbBlob
	}
	if h == "" {
		return nil, fmt.Errorf("%s #%d has no stored image", it.DocName, it.Ordinal)
	}
	b, err := m.kb.Blobs.Get(h)
	if err != nil {
		return nil, fmt.Errorf("%s #%d: stored image: %w", it.DocName, it.Ordinal, err)
	}
	if isJPEG(b) {
		return b, nil
	}
	img, err := vision.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s #%d: stored image: %w", it.DocName, it.Ordinal, err)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: JPEGQuality}); err != nil {
		return nil, fmt.Errorf("%s #%d: encode: %w", it.DocName, it.Ordinal, err)
	}
	return buf.Bytes(), nil
}

// Files hands out every unit's page file from the cache, rendering the missing ones in parallel (bounded by the
// pool), and returns the path of each unit that has one; failures are returned by unit id.
func (m *Maker) Files(ctx context.Context, its []kb.PageItem) (map[int64]string, map[int64]error) {
	paths := make(map[int64]string, len(its))
	fails := map[int64]error{}
	var todo []kb.PageItem
	seen := map[pagecache.Key]bool{}
	for _, it := range its {
		if p, ok := m.pages.Get(Key(it)); ok {
			paths[it.UnitID] = p
			continue
		}
		if !seen[Key(it)] {
			seen[Key(it)] = true
			todo = append(todo, it)
		}
	}
	eachPath(ctx, todo, m.Workers(), paths, fails, func(it kb.PageItem) (string, error) { return m.file(ctx, it) })
	// Units sharing a key with one just made (the same document in two places) take its file.
	for _, it := range its {
		if _, ok := paths[it.UnitID]; !ok && fails[it.UnitID] == nil {
			if p, ok := m.pages.Get(Key(it)); ok {
				paths[it.UnitID] = p
			}
		}
	}
	return paths, fails
}

// file hands out one unit's page file, rendering it when the cache does not have it.
func (m *Maker) file(ctx context.Context, it kb.PageItem) (string, error) {
	if p, ok := m.pages.Get(Key(it)); ok {
		return p, nil
	}
	data, err := m.Data(ctx, it)
	if err != nil {
		return "", err
	}
	return m.pages.Put(Key(it), data)
}

// each runs fn on every item with at most n at once, in the items' order of start; it stops starting new ones when
// ctx ends.
// eachPath runs fn over items as each does and records each unit's path, or its failure, in paths and fails.
func eachPath(ctx context.Context, items []kb.PageItem, n int, paths map[int64]string, fails map[int64]error,
	fn func(kb.PageItem) (string, error)) {
	var mu sync.Mutex
	each(ctx, items, n, func(it kb.PageItem) {
		p, err := fn(it)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			fails[it.UnitID] = err
		} else {
			paths[it.UnitID] = p
		}
	})
}

func each(ctx context.Context, items []kb.PageItem, n int, fn func(kb.PageItem)) {
	if len(items) == 0 {
		return
	}
	var wg sync.WaitGroup
	work := make(chan kb.PageItem)
	for range min(len(items), max(1, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				fn(it)
			}
		}()
	}
	for _, it := range items {
		if ctx.Err() != nil {
			break
		}
		work <- it
	}
	close(work)
	wg.Wait()
}

func isJPEG(b []byte) bool { return len(b) > 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF }

// withDPI sets a JPEG's JFIF density to dpi dots per inch, replacing the APP0 segment's values or inserting one.
func withDPI(b []byte, dpi int) []byte {
	if !isJPEG(b) || dpi <= 0 || dpi > 0xFFFF {
		return b
	}
	if len(b) > 18 && b[2] == 0xFF && b[3] == 0xE0 && string(b[6:11]) == "JFIF\x00" {
		out := bytes.Clone(b)
		out[13] = 1 // dots per inch
		binary.BigEndian.PutUint16(out[14:], uint16(dpi))
		binary.BigEndian.PutUint16(out[16:], uint16(dpi))
		return out
	}
	app0 := []byte{0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 1, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(app0[12:], uint16(dpi))
	binary.BigEndian.PutUint16(app0[14:], uint16(dpi))
	out := make([]byte, 0, len(b)+len(app0))
	out = append(out, b[:2]...)
	out = append(out, app0...)
	return append(out, b[2:]...)
}

// JPEGDensity reads a JPEG's JFIF density in dots per inch (0 when it has none or another unit).
func JPEGDensity(b []byte) int {
	if len(b) > 18 && isJPEG(b) && b[3] == 0xE0 && string(b[6:11]) == "JFIF\x00" && b[13] == 1 {
		return int(binary.BigEndian.Uint16(b[14:]))
	}
	return 0
}
