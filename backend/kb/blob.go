package kb

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// BlobStore keeps immutable files under their sha256: blobs/ab/abcdef…. Writes are atomic (temp file, fsync,
// rename), so a crash leaves either no blob or a whole one, and identical content is stored once.
type BlobStore struct {
	dir  string
	dirs sync.Map // fan-out directories known to exist
}

// NewBlobStore opens (creating) a blob directory.
func NewBlobStore(dir string) (*BlobStore, error) {
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return nil, fmt.Errorf("create blob store %s: %w", dir, err)
	}
	return &BlobStore{dir: dir}, nil
}

// Dir is the store's root.
func (b *BlobStore) Dir() string { return b.dir }

// ValidHash reports whether h looks like a sha256 hex digest (and so cannot escape the store's directory).
func ValidHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// Path is where the blob with hash h lives.
func (b *BlobStore) Path(h string) string { return filepath.Join(b.dir, h[:2], h) }

// Has reports whether the blob exists.
func (b *BlobStore) Has(h string) bool {
	if !ValidHash(h) {
		return false
	}
	_, err := os.Stat(b.Path(h))
	return err == nil
}

// Put stores data and returns its hash.
func (b *BlobStore) Put(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	if b.Has(h) {
		return h, nil
	}
	return h, b.write(h, func(w io.Writer) error { _, err := w.Write(data); return err }, true)
}

// PutReader streams r into the store, hashing as it copies, and returns the hash and size.
func (b *BlobStore) PutReader(r io.Reader) (string, int64, error) {
	f, err := os.CreateTemp(filepath.Join(b.dir, "tmp"), "in-*")
	if err != nil {
		return "", 0, fmt.Errorf("blob temp file: %w", err)
	}
	tmp := f.Name()
	placed := false
	defer func() {
		if !placed {
			os.Remove(tmp)
		}
	}()
	hw := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, hw), r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, fmt.Errorf("write blob: %w", err)
	}
	h := hex.EncodeToString(hw.Sum(nil))
	if b.Has(h) {
		return h, n, nil
	}
	if err := b.place(tmp, h, true); err != nil {
		return "", 0, err
	}
	placed = true
	return h, n, nil
}

// PutFile streams the file at path into the store.
func (b *BlobStore) PutFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	return b.PutReader(f)
}

// write stores a blob through a temp file renamed into place; with durable, the file and its directory are
// fsynced first (a BlobBatch syncs its blobs together instead).
func (b *BlobStore) write(h string, fill func(io.Writer) error, durable bool) error {
	f, err := os.CreateTemp(filepath.Join(b.dir, "tmp"), "w-*")
	if err != nil {
		return fmt.Errorf("blob temp file: %w", err)
	}
	tmp := f.Name()
	err = fill(f)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = b.place(tmp, h, durable)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write blob %s: %w", h, err)
	}
	return nil
}

func (b *BlobStore) place(tmp, h string, durable bool) error {
	dst := b.Path(h)
	dir := filepath.Dir(dst)
	if _, ok := b.dirs.Load(dir); !ok {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("blob dir: %w", err)
		}
		b.dirs.Store(dir, true)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("place blob %s: %w", h, err)
	}
	if durable {
		syncDir(dir)
	}
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// BlobBatch stores many small blobs (page thumbnails) whose durability is settled together: Put writes each one
// atomically (temp file, rename) but without an fsync of its own, and Sync makes every blob the batch put durable
// at once, before the caller commits the rows that reference them. After Sync every referenced blob is on disk. A
// power loss before Sync can leave blobs no committed row references (CheckBlobs lists them, RemoveOrphans deletes
// them), possibly cut short: Put rewrites a blob whose size is not its content's. Two fsyncs per thumbnail were a
// sixth of ingest's CPU in the storing process.
type BlobBatch struct {
	s     *BlobStore
	paths []string // blobs put (written or already present) since the last Sync
}

// Batch starts a BlobBatch. It is not safe for concurrent use.
func (b *BlobStore) Batch() *BlobBatch { return &BlobBatch{s: b} }

// Put stores data and returns its hash; it is durable only after Sync. A blob already present (whole) is not
// written again but is synced too: another batch may have written it and not synced it yet.
func (w *BlobBatch) Put(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	if fi, err := os.Stat(w.s.Path(h)); err != nil || fi.Size() != int64(len(data)) {
		if err := w.s.write(h, func(f io.Writer) error { _, err := f.Write(data); return err }, false); err != nil {
			return "", err
		}
	}
	w.paths = append(w.paths, w.s.Path(h))
	return h, nil
}

// Sync makes the blobs put since the last Sync durable, with their directory entries.
func (w *BlobBatch) Sync() error {
	if len(w.paths) == 0 {
		return nil
	}
	err := syncBlobs(w.s.dir, w.paths)
	w.paths = w.paths[:0]
	if err != nil {
		return fmt.Errorf("sync blobs in %s: %w", w.s.dir, err)
	}
	return nil
}

// syncEach fsyncs every file and each directory holding one: the portable form of syncBlobs.
func syncEach(paths []string) error {
	dirs := map[string]bool{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		syncDir(d)
	}
	return nil
}

// Open opens a blob for reading.
func (b *BlobStore) Open(h string) (*os.File, error) {
	if !ValidHash(h) {
		return nil, fmt.Errorf("blob %q: not a sha256 hash", h)
	}
	f, err := os.Open(b.Path(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", h, ErrNotFound)
	}
	return f, err
}

// Get reads a whole blob.
func (b *BlobStore) Get(h string) ([]byte, error) {
	f, err := b.Open(h)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Remove deletes a blob; a missing blob is not an error.
func (b *BlobStore) Remove(h string) error {
	if !ValidHash(h) {
		return fmt.Errorf("blob %q: not a sha256 hash", h)
	}
	err := os.Remove(b.Path(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Walk calls fn for every stored blob hash (temp files excluded).
func (b *BlobStore) Walk(fn func(h string, size int64, mod time.Time) error) error {
	return filepath.WalkDir(b.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "tmp" {
				return filepath.SkipDir
			}
			return nil
		}
		if !ValidHash(d.Name()) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return fn(d.Name(), info.Size(), info.ModTime())
	})
}
