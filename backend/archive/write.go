package archive

import (
	"archive/zip"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"proofglass/backend/kb"
)

// ExportRequest chooses what Export writes.
type ExportRequest struct {
	Collections []string // by name; every one must exist
	All         bool     // every collection, and the runs and conversations of none
	AppVersion  string
}

// ExportReport says what an export wrote.
type ExportReport struct {
	Collections []CollectionInfo `json:"collections"`
	Counts      map[string]int64 `json:"counts"`
	Blobs       int64            `json:"blobs"`
	BlobBytes   int64            `json:"blob_bytes"`
	Bytes       int64            `json:"bytes"` // of the archive
	Seconds     float64          `json:"seconds"`
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Export writes the chosen collections as one archive to w, streaming: rows are encoded as they are read from one
// snapshot of the database, blobs copied from the store (each checked against its hash), the manifest last.
func Export(ctx context.Context, k *kb.KB, req ExportRequest, w io.Writer) (*ExportReport, error) {
	start := time.Now()
	scope := kb.ExportScope{All: req.All}
	if !req.All {
		if len(req.Collections) == 0 {
			return nil, fmt.Errorf("export: name a collection, or export them all")
		}
		for _, name := range req.Collections {
			c, err := k.Docs.CollectionByName(ctx, name)
			if err != nil {
				return nil, fmt.Errorf("export collection %q: %w", name, err)
			}
			if !slices.Contains(scope.Collections, c.ID) {
				scope.Collections = append(scope.Collections, c.ID)
			}
		}
	}
	cw := &countingWriter{w: w}
	zw := zip.NewWriter(cw)
	s := &sink{zw: zw, blobs: map[string]bool{}, counts: map[string]int64{}, names: map[int64]string{},
		docs: map[int64]int64{}, emb: map[string]Embedder{}}
	if err := k.Export(ctx, scope, s); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := s.endTable(); err != nil {
		return nil, err
	}
	hashes := make([]string, 0, len(s.blobs))
	for h := range s.blobs {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	var blobBytes int64
	for _, h := range hashes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := s.copyBlob(k, h)
		if err != nil {
			return nil, err
		}
		blobBytes += n
	}
	m := Manifest{Format: Format, Version: Version, AppVersion: req.AppVersion, Created: time.Now().UTC(),
		Counts: s.counts, Blobs: int64(len(hashes)), Members: s.members, Embedders: s.emb}
	for _, id := range s.order {
		m.Collections = append(m.Collections, CollectionInfo{Name: s.names[id], Documents: s.docs[id]})
	}
	mw, err := zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: m.Created})
	if err != nil {
		return nil, fmt.Errorf("export: manifest: %w", err)
	}
	enc := json.NewEncoder(mw)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("export: manifest: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("export: finish the archive: %w", err)
	}
	return &ExportReport{Collections: m.Collections, Counts: m.Counts, Blobs: m.Blobs, BlobBytes: blobBytes, Bytes: cw.n,
		Seconds: time.Since(start).Seconds()}, nil
}

// sink encodes the export's rows into the archive's table members, one JSON object a line.
type sink struct {
	zw      *zip.Writer
	members []Member
	counts  map[string]int64
	blobs   map[string]bool

	table kb.TransferTable
	cur   *memberWriter
	buf   []byte

	order []int64 // collection ids in export order
	names map[int64]string
	docs  map[int64]int64
	emb   map[string]Embedder
}

// memberWriter hashes and counts a member as it is written.
type memberWriter struct {
	name string
	bw   *bufio.Writer
	h    hash.Hash
	n    int64
}

func (s *sink) begin(name string, method uint16) (*memberWriter, error) {
	w, err := s.zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: time.Now()})
	if err != nil {
		return nil, fmt.Errorf("export: %s: %w", name, err)
	}
	m := &memberWriter{name: name, h: sha256.New()}
	m.bw = bufio.NewWriterSize(io.MultiWriter(w, m.h, writerFunc(func(p []byte) { m.n += int64(len(p)) })), 256<<10)
	return m, nil
}

func (s *sink) end(m *memberWriter) error {
	if err := m.bw.Flush(); err != nil {
		return fmt.Errorf("export: %s: %w", m.name, err)
	}
	s.members = append(s.members, Member{Name: m.name, Size: m.n, SHA256: hex.EncodeToString(m.h.Sum(nil))})
	return nil
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

func (s *sink) endTable() error {
	if s.cur == nil {
		return nil
	}
	err := s.end(s.cur)
	s.cur = nil
	return err
}

func (s *sink) BeginTable(_ context.Context, t kb.TransferTable) error {
	if err := s.endTable(); err != nil {
		return err
	}
	m, err := s.begin(tableMember(t.Name), zip.Deflate)
	if err != nil {
		return err
	}
	s.table, s.cur = t, m
	s.counts[t.Name] = 0
	return nil
}

func (s *sink) Row(_ context.Context, r kb.Row) error {
	t := s.table
	b := append(s.buf[:0], '{')
	for i, c := range t.Columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, c.Name)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, c, r[i]); err != nil {
			return fmt.Errorf("export %s row %d: %w", t.Name, s.counts[t.Name]+1, err)
		}
		if h, ok := r[i].(string); c.Blob && ok && h != "" {
			s.blobs[h] = true
		}
	}
	b = append(b, '}', '\n')
	s.buf = b
	if _, err := s.cur.bw.Write(b); err != nil {
		return fmt.Errorf("export: %s: %w", s.cur.name, err)
	}
	s.counts[t.Name]++
	switch t.Name {
	case "collections":
		id, name := r[0].(int64), r[1].(string)
		s.order = append(s.order, id)
		s.names[id] = name
		s.emb[name] = Embedder{Text: r[2].(string), TextDim: r[3].(int64), Image: r[4].(string), ImageDim: r[5].(int64)}
	case "documents":
		s.docs[r[1].(int64)]++
	}
	return nil
}

func appendValue(b []byte, c kb.TransferColumn, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s: %v is not a finite number", c.Name, x)
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), nil
	case string:
		j, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		return append(b, j...), nil
	case []byte:
		enc := base64.StdEncoding.AppendEncode
		if c.Kind == kb.ColTextOrBlob {
			b = append(b, `{"base64":"`...)
			b = enc(b, x)
			return append(b, `"}`...), nil
		}
		b = append(b, '"')
		b = enc(b, x)
		return append(b, '"'), nil
	}
	return nil, fmt.Errorf("%s: unexpected %T", c.Name, v)
}

// copyBlob copies one blob from the store into the archive (stored, not compressed: page images and most originals
// are compressed already), checking its content against its hash.
func (s *sink) copyBlob(k *kb.KB, h string) (int64, error) {
	f, err := k.Blobs.Open(h)
	if err != nil {
		return 0, fmt.Errorf("export: blob %s, which the library refers to: %w (proofglass doctor checks the store)", h, err)
	}
	defer f.Close()
	m, err := s.begin(blobPrefix+h, zip.Store)
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(m.bw, f); err != nil {
		return 0, fmt.Errorf("export: blob %s: %w", h, err)
	}
	if err := s.end(m); err != nil {
		return 0, err
	}
	if got := s.members[len(s.members)-1].SHA256; got != h {
		return 0, fmt.Errorf("export: blob %s in the store holds other content (SHA-256 %s): the store is damaged; run proofglass doctor", h, got)
	}
	return m.n, nil
}
