package pdf

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"
)

// Renderer serves on-demand renders (viewer, agent crops) through a Client, keeping recently used documents open
// in the worker and recently made images in a Cache. It is safe for concurrent use.
type Renderer struct {
	c       *Client
	cache   *Cache
	maxOpen int
	mu      sync.Mutex
	open    map[string]*Doc
	order   []string // least recently used first
}

// NewRenderer returns a Renderer that keeps up to maxOpen documents open (0 means 4).
func NewRenderer(c *Client, cache *Cache, maxOpen int) *Renderer {
	if maxOpen <= 0 {
		maxOpen = 4
	}
	return &Renderer{c: c, cache: cache, maxOpen: maxOpen, open: map[string]*Doc{}}
}

// Render returns the image for req on the document at path (password for encrypted ones, else "").
func (r *Renderer) Render(ctx context.Context, path, password string, req RenderRequest) (*Rendered, error) {
	key := cacheKey(path, req)
	if r.cache != nil {
		if b, ok := r.cache.Get(key); ok {
			if out, err := unpackRendered(b); err == nil {
				return out, nil
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d, err := r.doc(ctx, path, password, req.MIME)
	if err != nil {
		return nil, err
	}
	out, err := d.Render(ctx, req)
	if err != nil {
		var we *WorkerError
		if asWorkerError(err, &we) {
			// The worker is gone; forget every handle so the next call reopens.
			r.open = map[string]*Doc{}
			r.order = nil
		}
		return nil, err
	}
	if r.cache != nil {
		if b, err := packRendered(out); err == nil {
			r.cache.Put(key, b)
		}
	}
	return out, nil
}

// Warm opens the document at path ahead of its first render and loads one page, which makes MuPDF read the page
// tree: on R's 2,415-page manual that first page costs ~100 ms, which a viewer should pay when a document is
// selected, not on the first page shown. mime is the document's type, as RenderRequest.MIME.
func (r *Renderer) Warm(ctx context.Context, path, password, mime string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, err := r.doc(ctx, path, password, mime)
	if err != nil {
		return err
	}
	if _, err := d.Page(ctx, 0, PageOptions{NoText: true}); err != nil {
		var we *WorkerError
		if asWorkerError(err, &we) {
			r.open = map[string]*Doc{}
			r.order = nil
		}
		return err
	}
	return nil
}

// doc is the open document at path; a blob's path always holds the same content, so the same type.
func (r *Renderer) doc(ctx context.Context, path, password, mime string) (*Doc, error) {
	if d, ok := r.open[path]; ok && d.usable() == nil {
		r.touch(path)
		return d, nil
	}
	delete(r.open, path)
	d, err := r.c.OpenAs(ctx, path, password, mime)
	if err != nil {
		return nil, err
	}
	r.open[path] = d
	r.touch(path)
	for len(r.order) > r.maxOpen {
		old := r.order[0]
		r.order = r.order[1:]
		if od, ok := r.open[old]; ok {
			_ = od.Close()
			delete(r.open, old)
		}
	}
	return d, nil
}

func (r *Renderer) touch(path string) {
	for i, p := range r.order {
		if p == path {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	r.order = append(r.order, path)
}

func cacheKey(path string, q RenderRequest) string {
	clip := "page"
	if q.Clip != nil {
		clip = fmt.Sprintf("%.2f,%.2f,%.2f,%.2f", q.Clip.X0, q.Clip.Y0, q.Clip.X1, q.Clip.Y1)
	}
	return fmt.Sprintf("%s\x00%d\x00%.2f\x00%s\x00%d\x00%s\x00%d", path, q.Page, q.DPI, clip, q.MaxPixels, q.Format, q.Quality)
}

// packRendered stores the image's description in front of its bytes so a cache hit needs no second lookup.
func packRendered(r *Rendered) ([]byte, error) {
	h, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 4, 4+len(h)+len(r.Data))
	binary.BigEndian.PutUint32(b, uint32(len(h)))
	b = append(b, h...)
	return append(b, r.Data...), nil
}

func unpackRendered(b []byte) (*Rendered, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("short cache entry")
	}
	n := int(binary.BigEndian.Uint32(b))
	if 4+n > len(b) {
		return nil, fmt.Errorf("short cache entry")
	}
	var r Rendered
	if err := json.Unmarshal(b[4:4+n], &r); err != nil {
		return nil, err
	}
	r.Data = b[4+n:]
	return &r, nil
}
