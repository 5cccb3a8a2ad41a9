package archive

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"time"

	"proofglass/backend/kb"
)

// ImportRequest says where an archive goes and how much of it the reader accepts.
type ImportRequest struct {
	Into   string // one collection for everything (made when absent); "" = each collection under its own name
	Limits Limits // zero = DefaultLimits
	// BeforeCommit, when set, runs after every row is written and before the transaction commits (tests stop a
	// process there); an error abandons the import.
	BeforeCommit func(ctx context.Context) error
	// Progress, when set, is told each table as its rows are read.
	Progress func(table string, rows int64)
}

// ImportReport says what an import added and what it found already there.
type ImportReport struct {
	Format      string           `json:"format"`
	Version     int              `json:"version"`
	AppVersion  string           `json:"app_version"`
	Collections []CollectionInfo `json:"collections"`
	Added       map[string]int64 `json:"added"`
	Existing    map[string]int64 `json:"existing"`
	Blobs       int64            `json:"blobs"`     // stored from the archive
	BlobsHeld   int64            `json:"blobs_had"` // the library had already
	Seconds     float64          `json:"seconds"`
}

// reader is an archive being read: its members by name and its manifest.
type reader struct {
	files   map[string]*zip.File
	m       Manifest
	listed  map[string]Member
	lim     Limits
	readAll int64 // bytes decompressed so far, against lim.MaxTotal
	// overrun is the first limit a member broke while being read: it is the reason of any error that follows.
	overrun error
}

// Import reads the archive in r (size bytes) into k. Every member is checked against the manifest (size and SHA-256)
// and the limits; blobs are stored first, content-addressed (a blob stored by an import that then fails is an
// orphan no row refers to: harmless, and swept by proofglass doctor's orphan check), then every row is written in one
// transaction, so an import that fails, or a process killed during it, leaves the library as it was.
func Import(ctx context.Context, k *kb.KB, r io.ReaderAt, size int64, req ImportRequest) (*ImportReport, error) {
	start := time.Now()
	rd, err := open(r, size, req.Limits)
	if err != nil {
		return nil, err
	}
	rep := &ImportReport{Format: rd.m.Format, Version: rd.m.Version, AppVersion: rd.m.AppVersion, Collections: rd.m.Collections}
	if err := rd.storeBlobs(ctx, k, rep); err != nil {
		return nil, err
	}
	im, err := k.BeginImport(ctx, kb.ImportOptions{Into: strings.TrimSpace(req.Into), HasBlob: k.Blobs.Has})
	if err != nil {
		return nil, err
	}
	defer im.Rollback()
	for _, t := range kb.TransferTables {
		if err := rd.readTable(ctx, im, t, req.Progress); err != nil {
			if rd.overrun != nil {
				return nil, rd.overrun // the rows cut short by a broken limit are not the reason
			}
			return nil, err
		}
	}
	if req.BeforeCommit != nil {
		if err := req.BeforeCommit(ctx); err != nil {
			return nil, err
		}
	}
	n, err := im.Commit()
	if err != nil {
		return nil, err
	}
	rep.Added, rep.Existing, rep.Seconds = n.Added, n.Existing, time.Since(start).Seconds()
	return rep, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// open reads the zip's directory and the manifest and checks them against each other and the limits.
func open(r io.ReaderAt, size int64, lim Limits) (*reader, error) {
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, invalid("not a zip file (%v)", err)
	}
	if len(zr.File) > lim.MaxMembers {
		return nil, invalid("%d members, more than the %d accepted", len(zr.File), lim.MaxMembers)
	}
	rd := &reader{files: map[string]*zip.File{}, listed: map[string]Member{}, lim: lim}
	for _, f := range zr.File {
		if err := safeName(f.Name); err != nil {
			return nil, err
		}
		if _, dup := rd.files[f.Name]; dup {
			return nil, invalid("member %s appears twice", f.Name)
		}
		rd.files[f.Name] = f
	}
	mf := rd.files[ManifestName]
	if mf == nil {
		return nil, invalid("no %s", ManifestName)
	}
	body, err := rd.readSmall(mf, lim.MaxManifest)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, invalid("%s is not JSON: %v", ManifestName, err)
	}
	if probe.Format != Format {
		return nil, invalid("%s names format %q, not %q", ManifestName, probe.Format, Format)
	}
	if probe.Version > Version {
		return nil, fmt.Errorf("%w: the archive is version %d, this Proofglass reads up to version %d; upgrade Proofglass to import it",
			ErrTooNew, probe.Version, Version)
	}
	if probe.Version < 1 {
		return nil, invalid("%s: version %d", ManifestName, probe.Version)
	}
	if err := json.Unmarshal(body, &rd.m); err != nil {
		return nil, invalid("%s: %v", ManifestName, err)
	}
	var total int64
	for _, m := range rd.m.Members {
		if err := safeName(m.Name); err != nil {
			return nil, err
		}
		if _, dup := rd.listed[m.Name]; dup {
			return nil, invalid("%s lists member %s twice", ManifestName, m.Name)
		}
		if !hashRE.MatchString(m.SHA256) {
			return nil, invalid("%s: member %s has SHA-256 %q, not 64 hex digits", ManifestName, m.Name, m.SHA256)
		}
		if m.Size < 0 || m.Size > lim.MaxMember {
			return nil, invalid("member %s: %d bytes, more than the %d accepted", m.Name, m.Size, lim.MaxMember)
		}
		total += m.Size
		if total > lim.MaxTotal {
			return nil, invalid("members total more than the %d bytes accepted", lim.MaxTotal)
		}
		f := rd.files[m.Name]
		if f == nil {
			return nil, invalid("%s lists member %s, which the archive lacks", ManifestName, m.Name)
		}
		if f.UncompressedSize64 != uint64(m.Size) {
			return nil, invalid("member %s: %d bytes, %s says %d", m.Name, f.UncompressedSize64, ManifestName, m.Size)
		}
		if name, ok := strings.CutPrefix(m.Name, blobPrefix); ok && (!hashRE.MatchString(name) || name != m.SHA256) {
			return nil, invalid("blob member %s is not named by its SHA-256 %s", m.Name, m.SHA256)
		}
		rd.listed[m.Name] = m
	}
	var blobs int64
	for name := range rd.files {
		if name == ManifestName {
			continue
		}
		known := strings.HasPrefix(name, blobPrefix)
		if t, ok := strings.CutPrefix(name, tablePrefix); ok {
			_, known = kb.TransferTableNamed(strings.TrimSuffix(t, tableSuffix))
		}
		if !known {
			continue // a member a later version added: ignored
		}
		if _, ok := rd.listed[name]; !ok {
			return nil, invalid("member %s is not in %s", name, ManifestName)
		}
		if strings.HasPrefix(name, blobPrefix) {
			blobs++
		}
	}
	if blobs != rd.m.Blobs {
		return nil, invalid("%d blobs, %s says %d", blobs, ManifestName, rd.m.Blobs)
	}
	for t, n := range rd.m.Counts {
		if _, ok := kb.TransferTableNamed(t); ok && n > 0 && rd.files[tableMember(t)] == nil {
			return nil, invalid("%s counts %d %s rows, but the archive has no %s", ManifestName, n, t, tableMember(t))
		}
	}
	return rd, nil
}

// limited opens a member for reading through the limits: its bytes are counted against the member's listed size and
// the total, so a member that decompresses to more than it claims (a zip bomb) is stopped at the limit.
func (rd *reader) limited(f *zip.File, max int64) (io.ReadCloser, error) {
	if f.UncompressedSize64 > uint64(max) {
		return nil, invalid("member %s: %d bytes, more than the %d accepted", f.Name, f.UncompressedSize64, max)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, invalid("member %s: %v", f.Name, err)
	}
	return &boundedReader{rc: rc, rd: rd, name: f.Name, left: max}, nil
}

type boundedReader struct {
	rc   io.ReadCloser
	rd   *reader
	name string
	left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	b.rd.readAll += int64(n)
	if b.left < 0 && b.rd.overrun == nil {
		b.rd.overrun = invalid("member %s decompresses to more than it declares", b.name)
	}
	if b.rd.readAll > b.rd.lim.MaxTotal && b.rd.overrun == nil {
		b.rd.overrun = invalid("the archive decompresses to more than the %d bytes accepted", b.rd.lim.MaxTotal)
	}
	if err != nil && !errors.Is(err, io.EOF) && b.rd.overrun == nil {
		// archive/zip stops a member that inflates past its declared size (or fails its CRC) with ErrFormat.
		b.rd.overrun = invalid("member %s decompresses to more than it declares, or is damaged (%v)", b.name, err)
	}
	if b.rd.overrun != nil {
		return n, b.rd.overrun
	}
	return n, err
}

func (b *boundedReader) Close() error { return b.rc.Close() }

func (rd *reader) readSmall(f *zip.File, max int64) ([]byte, error) {
	rc, err := rd.limited(f, max)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// checked opens a listed member and returns its reader and a check to call after reading it all: its size and
// SHA-256 against the manifest.
func (rd *reader) checked(name string) (io.Reader, func() error, io.Closer, error) {
	m := rd.listed[name]
	rc, err := rd.limited(rd.files[name], m.Size)
	if err != nil {
		return nil, nil, nil, err
	}
	h := sha256.New()
	cnt := &counter{}
	r := io.TeeReader(rc, io.MultiWriter(h, cnt))
	check := func() error {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return err
		}
		if cnt.n != m.Size {
			return invalid("member %s: %d bytes, %s says %d", name, cnt.n, ManifestName, m.Size)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != m.SHA256 {
			return invalid("member %s: SHA-256 %s, %s says %s (the archive is damaged or altered)", name, got, ManifestName, m.SHA256)
		}
		return nil
	}
	return r, check, rc, nil
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ hash.Hash = sha256.New()

// smallBlob is the size up to which a blob is stored through a kb.BlobBatch: page thumbnails and images, whose
// fsyncs one by one were most of an import's time.
const smallBlob = 4 << 20

// storeBlobs writes every blob the library lacks into its store, checking each against its name, and makes them
// durable before the rows that refer to them are written.
func (rd *reader) storeBlobs(ctx context.Context, k *kb.KB, rep *ImportReport) error {
	batch := k.Blobs.Batch()
	for _, m := range rd.m.Members {
		h, ok := strings.CutPrefix(m.Name, blobPrefix)
		if !ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if k.Blobs.Has(h) {
			rep.BlobsHeld++
			continue
		}
		r, check, c, err := rd.checked(m.Name)
		if err != nil {
			return err
		}
		var got string
		if m.Size <= smallBlob {
			// Read whole (bounded) and written without an fsync each; the batch syncs them all below.
			var b []byte
			if b, err = io.ReadAll(r); err == nil {
				if err = check(); err == nil {
					got, err = batch.Put(b)
				}
			}
		} else if got, _, err = k.Blobs.PutReader(r); err == nil {
			err = check()
		}
		c.Close()
		if err != nil {
			return fmt.Errorf("blob %s: %w", h, err)
		}
		if got != h {
			return invalid("blob %s holds content of SHA-256 %s", h, got)
		}
		rep.Blobs++
	}
	return batch.Sync()
}

// readTable reads one table's member line by line into the import, then checks its hash and row count.
func (rd *reader) readTable(ctx context.Context, im *kb.Import, t kb.TransferTable, progress func(string, int64)) error {
	name := tableMember(t.Name)
	want := rd.m.Counts[t.Name]
	if _, ok := rd.listed[name]; !ok {
		if want != 0 {
			return invalid("%s counts %d %s rows, but lists no %s", ManifestName, want, t.Name, name)
		}
		return nil
	}
	r, check, c, err := rd.checked(name)
	if err != nil {
		return err
	}
	defer c.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, min(64<<10, rd.lim.MaxLine)), rd.lim.MaxLine) // a token may grow to the larger of the two
	var n int64
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		n++
		if n > want {
			return invalid("%s has more rows than the %d %s counts", name, want, ManifestName)
		}
		row, err := decodeRow(t, line)
		if err != nil {
			return invalid("%s line %d: %v", name, n, err)
		}
		if err := im.Put(ctx, t.Name, row); err != nil {
			return fmt.Errorf("%s line %d: %w", name, n, err)
		}
		if progress != nil && n%1000 == 0 {
			progress(t.Name, n)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return invalid("%s line %d: longer than the %d bytes accepted", name, n+1, rd.lim.MaxLine)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := check(); err != nil {
		return err
	}
	if n != want {
		return invalid("%s has %d rows, %s counts %d", name, n, ManifestName, want)
	}
	if progress != nil {
		progress(t.Name, n)
	}
	return nil
}

// decodeRow reads one JSON object into a row of t, each value checked against its column's kind; fields the table
// does not have (a later version's) are ignored, a missing one is an error.
func decodeRow(t kb.TransferTable, line []byte) (kb.Row, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	row := make(kb.Row, len(t.Columns))
	for i, c := range t.Columns {
		raw, ok := obj[c.Name]
		if !ok {
			return nil, fmt.Errorf("no %q", c.Name)
		}
		v, err := decodeValue(c, raw)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", c.Name, err)
		}
		row[i] = v
	}
	return row, nil
}

func decodeValue(c kb.TransferColumn, raw json.RawMessage) (any, error) {
	null := string(bytes.TrimSpace(raw)) == "null"
	switch c.Kind {
	case kb.ColInt, kb.ColNullInt:
		if null {
			if c.Kind == kb.ColNullInt {
				return nil, nil
			}
			return nil, errors.New("null, want an integer")
		}
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, errors.New("want an integer")
		}
		return n, nil
	case kb.ColReal:
		var f float64
		if null || json.Unmarshal(raw, &f) != nil {
			return nil, errors.New("want a number")
		}
		return f, nil
	case kb.ColText:
		var s string
		if null || json.Unmarshal(raw, &s) != nil {
			return nil, errors.New("want a string")
		}
		return s, nil
	case kb.ColBlob:
		var s string
		if null || json.Unmarshal(raw, &s) != nil {
			return nil, errors.New("want base64 bytes")
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("not base64: %v", err)
		}
		return b, nil
	case kb.ColTextOrBlob:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, nil
		}
		var o struct {
			Base64 *string `json:"base64"`
		}
		if null || json.Unmarshal(raw, &o) != nil || o.Base64 == nil {
			return nil, errors.New(`want a string or {"base64": …}`)
		}
		b, err := base64.StdEncoding.DecodeString(*o.Base64)
		if err != nil {
			return nil, fmt.Errorf("not base64: %v", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown column kind %d", c.Kind)
}
