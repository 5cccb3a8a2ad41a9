package server

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

// PageDPI is the resolution of the page files: VRAG's corpus was made by pdf2image's default, 200 DPI.
const PageDPI = 200

// pageJPEGQuality is PIL's default JPEG quality, which VRAG's corpus and clients use.
const pageJPEGQuality = 75

// maxPagePixels bounds one page file (a poster-sized page is rendered below 200 DPI rather than at 60+ Mpx).
const maxPagePixels = 24 << 20

// item is one retrievable unit with what its page file needs.
type item struct{ kb.PageItem }

func (it item) key() pagecache.Key {
	k := pagecache.Key{Collection: it.Collection, SHA256: it.SHA256, Name: it.DocName, Page: it.Ordinal}
	if it.UnitKind == kb.UnitPage {
		k.DPI = PageDPI
	}
	return k
}

// vragType is the item's type in VRAG's vocabulary, which tells a client how to open file_path: every file Proofglass
// returns is a JPEG, so "image" (a video clip is returned as its representative frame; unit_type says so).
func (it item) vragType() string { return "image" }

// unitType is the item's real kind: a PDF page, an image, or a video frame.
func (it item) unitType() string {
	switch it.UnitKind {
	case kb.UnitPage:
		return "page"
	case kb.UnitClip:
		return "video_frame"
	}
	return "image"
}

// loadItems reads the units with the given ids (those deleted meanwhile are simply absent).
func (s *Server) loadItems(ctx context.Context, ids []int64) (map[int64]item, error) {
	its, err := s.lib.KB.PageItems(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]item, len(its))
	for id, it := range its {
		out[id] = item{it}
	}
	return out, nil
}

// fillItems is the stable order that completes a query's list when the signals found fewer than top_k units: the
// ready documents of the collections in scope, oldest first (by document id), each in page order.
func (s *Server) fillItems(ctx context.Context, collections []string, n int) ([]item, error) {
	its, err := s.lib.KB.ReadyPageItems(ctx, collections, n)
	if err != nil {
		return nil, err
	}
	out := make([]item, len(its))
	for i, it := range its {
		out[i] = item{it}
	}
	return out, nil
}

// pageRenderers are MuPDF workers for cold page files, one per core: each pdf.Client runs one operation at a time,
// so a 16-query request's renders run side by side instead of one after another.
type pageRenderers struct {
	free    chan *pdf.Renderer
	clients []*pdf.Client
}

func newPageRenderers(n int) *pageRenderers {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	p := &pageRenderers{free: make(chan *pdf.Renderer, n)}
	for range n {
		c := pdf.NewClient(pdf.Options{}) // the worker process starts on first use
		p.clients = append(p.clients, c)
		p.free <- pdf.NewRenderer(c, nil, 4)
	}
	return p
}

func (p *pageRenderers) close() {
	for _, c := range p.clients {
		c.Close()
	}
}

// pageFiles makes sure every item has its page file, rendering the missing ones in parallel (bounded by the
// renderer pool), and returns the path of each item that has one; failures are returned by unit id.
func (s *Server) pageFiles(ctx context.Context, its []item) (map[int64]string, map[int64]error) {
	paths := make(map[int64]string, len(its))
	fails := map[int64]error{}
	var todo []item
	seen := map[pagecache.Key]bool{}
	for _, it := range its {
		if p, ok := s.lib.Pages.Get(it.key()); ok {
			paths[it.UnitID] = p
			continue
		}
		if !seen[it.key()] {
			seen[it.key()] = true
			todo = append(todo, it)
		}
	}
	if len(todo) > 0 {
		var mu sync.Mutex
		var wg sync.WaitGroup
		work := make(chan item)
		for range min(len(todo), cap(s.pages.free)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for it := range work {
					p, err := s.makePageFile(ctx, it)
					mu.Lock()
					if err != nil {
						fails[it.UnitID] = err
					} else {
						paths[it.UnitID] = p
					}
					mu.Unlock()
				}
			}()
		}
		for _, it := range todo {
			work <- it
		}
		close(work)
		wg.Wait()
	}
	// Items sharing a key with one just made (the same document in two places) take its file.
	for _, it := range its {
		if _, ok := paths[it.UnitID]; !ok && fails[it.UnitID] == nil {
			if p, ok := s.lib.Pages.Get(it.key()); ok {
				paths[it.UnitID] = p
			}
		}
	}
	return paths, fails
}

// makePageFile renders one unit's page file: a PDF page at 200 DPI by MuPDF, an image or a video frame from its
// stored pixels. The JPEG says 200 DPI in its JFIF header, as pdf2image's files do.
func (s *Server) makePageFile(ctx context.Context, it item) (string, error) {
	if p, ok := s.lib.Pages.Get(it.key()); ok {
		return p, nil
	}
	var data []byte
	switch {
	case it.UnitKind == kb.UnitPage:
		path := it.SourcePath
		if it.Blob != "" && s.lib.KB.Blobs.Has(it.Blob) {
			path = s.lib.KB.Blobs.Path(it.Blob)
		}
		if path == "" {
			return "", fmt.Errorf("%s: the original PDF is neither in the blob store nor at a source path", it.DocName)
		}
		var r *pdf.Renderer
		select {
		case r = <-s.pages.free:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		rend, err := r.Render(ctx, path, s.lib.PDFPassword(kb.Document{SHA256: it.SHA256}), pdf.RenderRequest{
			Page: it.Ordinal - 1, DPI: PageDPI, Format: pdf.JPEG, Quality: pageJPEGQuality, MaxPixels: maxPagePixels})
		s.pages.free <- r
		if err != nil {
			return "", fmt.Errorf("render page %d of %s: %w", it.Ordinal, it.DocName, err)
		}
		data = withDPI(rend.Data, int(rend.DPI+0.5))
	default:
		h := it.ImageBlob
		if h == "" {
			h = it.ThumbBlob
		}
		if h == "" {
			return "", fmt.Errorf("%s #%d has no stored image", it.DocName, it.Ordinal)
		}
		b, err := s.lib.KB.Blobs.Get(h)
		if err != nil {
			return "", fmt.Errorf("%s #%d: stored image: %w", it.DocName, it.Ordinal, err)
		}
		if !isJPEG(b) {
			img, err := vision.Decode(b)
			if err != nil {
				return "", fmt.Errorf("%s #%d: stored image: %w", it.DocName, it.Ordinal, err)
			}
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: pageJPEGQuality}); err != nil {
				return "", err
			}
			b = buf.Bytes()
		}
		data = b
	}
	return s.lib.Pages.Put(it.key(), data)
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
