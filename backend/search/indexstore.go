package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"slices"
	"time"
	"unsafe"

	"proofglass/backend/atomicfile"
	"proofglass/backend/kb"
	"proofglass/backend/vector"
)

// metaTable holds the filter fields of every indexed id, sorted by id, in flat arrays: saved beside the index file
// and read back in one pass of a few bytes per vector, so a new process needs no SQLite query to filter or to map
// hits to units. Ids whose vector is zero are listed too (but not indexed), so the delta against SQLite stays empty.
type metaTable struct {
	ids, units, colls, docs []int64
	kinds                   []byte
}

var kindCodes = []string{"", "pdf", "image", "video"}

func kindCode(s string) byte {
	if i := slices.Index(kindCodes, s); i > 0 {
		return byte(i)
	}
	return 0
}

func (t *metaTable) len() int { return len(t.ids) }

func (t *metaTable) lookup(id int64) (unitMeta, bool) {
	i, ok := slices.BinarySearch(t.ids, id)
	if !ok {
		return unitMeta{}, false
	}
	return unitMeta{unit: t.units[i], collection: t.colls[i], document: t.docs[i], kind: kindCodes[t.kinds[i]%4]}, true
}

func (t *metaTable) at(i int) (int64, unitMeta) {
	return t.ids[i], unitMeta{unit: t.units[i], collection: t.colls[i], document: t.docs[i], kind: kindCodes[t.kinds[i]%4]}
}

func (t *metaTable) add(id int64, m unitMeta) {
	t.ids = append(t.ids, id)
	t.units = append(t.units, m.unit)
	t.colls = append(t.colls, m.collection)
	t.docs = append(t.docs, m.document)
	t.kinds = append(t.kinds, kindCode(m.kind))
}

// without returns a copy of t less the ids in gone, with room for more entries.
func (t *metaTable) without(gone map[int64]bool, more int) *metaTable {
	n := t.len() - len(gone) + more
	out := &metaTable{ids: make([]int64, 0, n), units: make([]int64, 0, n), colls: make([]int64, 0, n),
		docs: make([]int64, 0, n), kinds: make([]byte, 0, n)}
	if len(gone) == 0 {
		out.ids = append(out.ids, t.ids...)
		out.units = append(out.units, t.units...)
		out.colls = append(out.colls, t.colls...)
		out.docs = append(out.docs, t.docs...)
		out.kinds = append(out.kinds, t.kinds...)
		return out
	}
	for i := range t.ids {
		if id, m := t.at(i); !gone[id] {
			out.add(id, m)
		}
	}
	return out
}

// sorted returns t ordered by id (t itself when it already is).
func (t *metaTable) sorted() *metaTable {
	if slices.IsSorted(t.ids) {
		return t
	}
	order := make([]int, t.len())
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return compareInt64(t.ids[a], t.ids[b]) })
	out := &metaTable{}
	for _, i := range order {
		id, m := t.at(i)
		out.add(id, m)
	}
	return out
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Sidecar layout, little-endian: magic "LOUPEMTA", version u32, CRC-32C of everything after the first 24 bytes
// u32, generation u64 (the index file's), count u64, then count × i64 ids, units, collections, documents, and
// count bytes of kind codes.
const (
	metaMagic   = "LOUPEMTA"
	metaVersion = 1
	metaHeader  = 32
)

func metaPath(indexFile string) string { return indexFile + ".meta" }

func (t *metaTable) save(path string, gen uint64) error {
	n := t.len()
	buf := make([]byte, metaHeader+32*n+n)
	copy(buf, metaMagic)
	le := binary.LittleEndian
	le.PutUint32(buf[8:], metaVersion)
	le.PutUint64(buf[16:], gen)
	le.PutUint64(buf[24:], uint64(n))
	off := metaHeader
	for _, col := range [][]int64{t.ids, t.units, t.colls, t.docs} {
		for _, v := range col {
			le.PutUint64(buf[off:], uint64(v))
			off += 8
		}
	}
	copy(buf[off:], t.kinds)
	return saveSealed(path, buf)
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// saveSealed writes a sidecar file whose bytes 12–15 hold the CRC-32C of everything from byte 16 on, whole or not at all
// (atomicfile: a temporary file of its own, so two processes may save at once), so a reader sees the old file or the new one.
func saveSealed(path string, buf []byte) error {
	binary.LittleEndian.PutUint32(buf[12:], crc32.Checksum(buf[16:], crcTable))
	if err := atomicfile.Write(path, buf, 0o600); err != nil {
		return fmt.Errorf("search: save: %w", err)
	}
	return nil
}

var errMetaCorrupt = errors.New("index metadata file corrupt")

// loadMetaTable reads a sidecar; the id columns alias one buffer (no per-row decode on little-endian hosts).
func loadMetaTable(path string) (*metaTable, uint64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	le := binary.LittleEndian
	if len(raw) < metaHeader || string(raw[:8]) != metaMagic || le.Uint32(raw[8:]) != metaVersion {
		return nil, 0, fmt.Errorf("search: %s: %w", path, errMetaCorrupt)
	}
	gen, n := le.Uint64(raw[16:]), le.Uint64(raw[24:])
	if n > uint64(len(raw)) || uint64(len(raw)) != metaHeader+33*n {
		return nil, 0, fmt.Errorf("search: %s: size: %w", path, errMetaCorrupt)
	}
	if crc32.Checksum(raw[16:], crcTable) != le.Uint32(raw[12:]) {
		return nil, 0, fmt.Errorf("search: %s: checksum: %w", path, errMetaCorrupt)
	}
	cnt := int(n)
	// Copy into int64 storage once so the columns are aligned.
	words := make([]int64, 4*cnt)
	body := raw[metaHeader:]
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 32*cnt), body[:32*cnt])
	} else {
		for i := range words {
			words[i] = int64(le.Uint64(body[8*i:]))
		}
	}
	t := &metaTable{ids: words[:cnt:cnt], units: words[cnt : 2*cnt : 2*cnt], colls: words[2*cnt : 3*cnt : 3*cnt],
		docs: words[3*cnt:], kinds: body[32*cnt:]}
	if !slices.IsSorted(t.ids) {
		return nil, 0, fmt.Errorf("search: %s: ids out of order: %w", path, errMetaCorrupt)
	}
	return t, gen, nil
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// delta is what changed in SQLite since a saved index: ids to add and ids to drop.
type delta struct {
	added, removed []int64
}

// diffIDs compares the sorted ids of a saved index with SQLite's current ones.
func (s *Searcher) diffIDs(ctx context.Context, k indexKey, have *metaTable) (delta, error) {
	cur, _, err := s.currentIDs(ctx, k, have)
	if err != nil {
		return delta{}, fmt.Errorf("search: list vectors of %s: %w", k.embedder, err)
	}
	var d delta
	i, j := 0, 0
	for i < len(have.ids) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(have.ids) && have.ids[i] < cur[j]):
			d.removed = append(d.removed, have.ids[i])
			i++
		case i == len(have.ids) || cur[j] < have.ids[i]:
			d.added = append(d.added, cur[j])
			j++
		default:
			i++
			j++
		}
	}
	return d, nil
}

// currentIDs returns the sorted ids SQLite would index now for k. A passage id is never handed out twice and each
// is larger than every id before it (kb.nextPassageID), so the passages with ids up to the saved index's largest
// are a subset of the saved ones: when SQLite counts as many as the index holds, they are the same, and only the
// larger ids need listing. At library size that is a count over an index range instead of 173k rows read into Go.
// The second result reports whether that shortcut was taken.
func (s *Searcher) currentIDs(ctx context.Context, k indexKey, have *metaTable) ([]int64, bool, error) {
	vs := k.set()
	// The saved passage ids: the positive ones, at the end of the sorted list.
	first, _ := slices.BinarySearch(have.ids, 1)
	saved := have.ids[first:]
	if k.modality == kb.ModalityText && len(saved) > 0 {
		top := saved[len(saved)-1]
		n, err := s.kb.Search.PassagesUpTo(ctx, vs, top)
		if err != nil {
			return nil, false, err
		}
		if n == len(saved) {
			// Units indexed by their whole text (no passages), then the passages, then the passages added since.
			// Ingest stores no text vector without passages, so where the saved index has no such unit (any
			// knowledge base re-embedded since passages exist) only units added since can be one: checking each
			// of 13k units' passages cost 120 ms at library size.
			var cur []int64
			if first == 0 && len(have.units) == len(have.ids) {
				cur, err = s.kb.Search.WholeTextIDsAfter(ctx, vs, slices.Max(have.units))
			} else {
				cur, err = s.kb.Search.WholeTextIDs(ctx, vs)
			}
			if err != nil {
				return nil, false, err
			}
			slices.Sort(cur)
			cur = append(cur, saved...)
			n := len(cur)
			after, err := s.kb.Search.PassageIDsAfter(ctx, vs, top)
			if err != nil {
				return nil, false, err
			}
			cur = append(cur, after...)
			slices.Sort(cur[n:])
			return cur, true, nil
		}
	}
	cur, err := s.kb.Search.IndexedIDs(ctx, vs)
	if err != nil {
		return nil, false, err
	}
	slices.Sort(cur)
	return cur, false, nil
}

// fetchItems loads the vectors and filter fields of ids, in batches that keep each statement's variables few.
func (s *Searcher) fetchItems(ctx context.Context, k indexKey, ids []int64, fn func(id int64, m unitMeta, v []float32)) error {
	err := s.kb.Search.IndexItemsByID(ctx, k.set(), ids, func(it kb.IndexItem) error {
		fn(it.ID, unitMeta{unit: it.Unit, collection: it.Collection, document: it.Document, kind: it.Kind}, it.Vec)
		return nil
	})
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return nil
}

// openSaved maps the saved index of k, reads its metadata and applies the changes saved since, whatever their
// generation (returned): the caller uses them as they are when the generation is current, or brings them up to
// date. It also returns the base as saved, which later saves write their changes against.
func (s *Searcher) openSaved(k indexKey) (vectorIndex, *metaTable, uint64, *savedBase, error) {
	path := indexPath(s.opts.IndexDir, k)
	t, mgen, err := loadMetaTable(metaPath(path))
	if err != nil {
		return vectorIndex{}, nil, 0, nil, err
	}
	cfg := indexConfig(k.dim)
	a, gen, err := vector.OpenMappedAny(path, cfg)
	if err != nil {
		return vectorIndex{}, nil, 0, nil, err
	}
	if a.Kind() == "hnsw" && a.Len() < cfg.Crossover {
		// Saved before exact scan covered this size: rebuilt once, as an exact index.
		return vectorIndex{}, nil, 0, nil, fmt.Errorf("search: %s: a graph of %d vectors, below the exact-scan size %d", path, a.Len(), cfg.Crossover)
	}
	if gen != mgen {
		return vectorIndex{}, nil, 0, nil, fmt.Errorf("search: %s: metadata of generation %d for an index of %d", path, mgen, gen)
	}
	base := &savedBase{meta: t, gen: gen}
	c, err := loadChanges(changesPath(path), k.dim)
	switch {
	case isMissing(err):
		return vectorIndex{a}, t, gen, base, nil
	case err != nil:
		// The base alone is still sound: the caller catches up from SQLite.
		slog.Warn("search: saved index changes unusable", "file", changesPath(path), "err", err)
		return vectorIndex{a}, t, gen, base, nil
	case c.baseGen != gen:
		return vectorIndex{a}, t, gen, base, nil // written over an older base, since replaced
	}
	gone := make(map[int64]bool, len(c.removed))
	for _, id := range c.removed {
		a.Delete(id)
		gone[id] = true
	}
	next := t.without(gone, len(c.added))
	var ids []int64
	var vecs [][]float32
	for _, x := range c.added {
		next.add(x.id, x.m)
		if x.vec != nil {
			ids, vecs = append(ids, x.id), append(vecs, x.vec)
		}
	}
	if err := a.AddBatch(ids, vecs); err != nil {
		return vectorIndex{}, nil, 0, nil, fmt.Errorf("search: %s: %w", changesPath(path), err)
	}
	return vectorIndex{a}, next.sorted(), c.gen, base, nil
}

// applyDelta brings an index and its metadata up to date with SQLite in place (the index is safe for concurrent
// use, so searches running on it go on) and returns the new metadata. It reports false when so much was removed
// that a rebuild is the better choice.
func (s *Searcher) applyDelta(ctx context.Context, k indexKey, vi vectorIndex, have *metaTable) (*metaTable, bool, error) {
	d, err := s.diffIDs(ctx, k, have)
	if err != nil {
		return nil, false, err
	}
	if len(d.removed) > have.len()/2+1000 {
		return nil, false, nil
	}
	if len(d.added) == 0 && len(d.removed) == 0 {
		return have, true, nil
	}
	gone := map[int64]bool{}
	for _, id := range d.removed {
		vi.ix.Delete(id)
		gone[id] = true
	}
	next := have.without(gone, len(d.added))
	var ids []int64
	var vecs [][]float32
	err = s.fetchItems(ctx, k, d.added, func(id int64, m unitMeta, v []float32) {
		next.add(id, m)
		if normalize(v) {
			ids = append(ids, id)
			vecs = append(vecs, v)
		}
	})
	if err != nil {
		return nil, false, err
	}
	if len(ids) > 0 {
		if err := vi.ix.AddBatch(ids, vecs); err != nil {
			return nil, false, fmt.Errorf("search: add to index of %s: %w", k.embedder, err)
		}
	}
	slog.Debug("search: dense index updated", "embedder", k.embedder, "modality", k.modality,
		"added", len(d.added), "removed", len(d.removed))
	return next.sorted(), true, nil
}

// saveState saves an index under fp's generation: only its changes since the saved base while they are few (and
// the index is an exact one, whose vectors can be read back), else the whole index and its metadata as the new
// base. Failure only costs the next process a delta. The caller holds the cached index's lock.
func (s *Searcher) saveState(k indexKey, st *indexState) {
	vi, ok := st.idx.(vectorIndex)
	if !ok || s.opts.IndexDir == "" {
		return
	}
	if err := os.MkdirAll(s.opts.IndexDir, 0o700); err != nil {
		slog.Warn("search: cannot create index directory", "dir", s.opts.IndexDir, "err", err)
		return
	}
	start := time.Now()
	gen := st.fp.generation()
	path := indexPath(s.opts.IndexDir, k)
	if b := st.saved; b != nil {
		if a, ok := vi.ix.(*vector.Auto); ok && a.Kind() == "exact" {
			if c := changesSince(b.meta, st.meta, a.Vector, b.meta.len()/changesShare); c != nil {
				c.baseGen, c.gen = b.gen, gen
				if err := c.save(changesPath(path), k.dim); err != nil {
					slog.Warn("search: cannot save index changes", "err", err)
					return
				}
				slog.Debug("search: index changes saved", "file", changesPath(path), "added", len(c.added),
					"removed", len(c.removed), "took", time.Since(start))
				return
			}
		}
	}
	// Metadata first: an index file is only trusted with metadata of its own generation.
	if err := st.meta.save(metaPath(path), gen); err != nil {
		slog.Warn("search: cannot save index metadata", "err", err)
		return
	}
	vi.ix.SetGeneration(gen)
	if err := vi.ix.Save(path); err != nil {
		slog.Warn("search: cannot save index", "file", path, "err", err)
		return
	}
	if err := os.Remove(changesPath(path)); err != nil && !isMissing(err) {
		slog.Warn("search: cannot remove old index changes", "err", err)
	}
	st.saved = &savedBase{meta: st.meta, gen: gen}
	slog.Debug("search: index saved", "file", path, "took", time.Since(start))
}

// changesShare: the changes since the base are saved apart while they are at most 1/changesShare of its entries;
// past that the whole index is saved again, so opening never replays more than that.
const changesShare = 8

// Refresh brings the dense index of every collection's embedders up to date with SQLite and saves it, so that no
// search has to build one: ingestion and re-embedding call it as they go and when they finish. Only what changed
// since the saved index is read from SQLite.
func (s *Searcher) Refresh(ctx context.Context) error {
	cs, err := s.collections(ctx)
	if err != nil {
		return err
	}
	seen := map[indexKey]bool{}
	for _, c := range cs {
		for _, k := range []indexKey{{c.TextEmbedder, kb.ModalityText, c.TextDim}, {c.ImageEmbedder, kb.ModalityImage, c.ImageDim}} {
			if k.embedder == "" || k.dim <= 0 || seen[k] {
				continue
			}
			seen[k] = true
			if _, err := s.indexNow(ctx, k, true); err != nil {
				return err
			}
		}
	}
	return nil
}
