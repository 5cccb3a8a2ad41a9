package vector

import (
	"fmt"
	"os"
)

// mapPayload maps an index file read-only-shared-copy-on-write and returns its header and payload. Unlike readFile
// it does not read the payload: pages come in as a search touches them, so opening a large index costs the header
// check, not a pass over the file. The payload checksum is therefore not verified here; files are written by
// rename, so a torn file shows as a length mismatch, and decoding still checks every count and link it reads.
func mapPayload(path string) (header, []byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, nil, nil, fmt.Errorf("vector: load %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return header{}, nil, nil, fmt.Errorf("vector: load %s: %w", path, err)
	}
	if st.Size() < headerSize {
		return header{}, nil, nil, fmt.Errorf("vector: load %s: %d bytes: %w", path, st.Size(), ErrCorrupt)
	}
	data, unmap, err := mapFile(f, int(st.Size()))
	if err != nil {
		return header{}, nil, nil, fmt.Errorf("vector: map %s: %w", path, err)
	}
	h, err := decodeHeader(data[:headerSize])
	if err != nil {
		unmap()
		return header{}, nil, nil, fmt.Errorf("vector: load %s: %w", path, err)
	}
	if h.payloadLen != uint64(st.Size())-headerSize {
		unmap()
		return header{}, nil, nil, fmt.Errorf("vector: load %s: payload is %d bytes, header says %d (torn write?): %w",
			path, st.Size()-headerSize, h.payloadLen, ErrCorrupt)
	}
	return h, data[headerSize:], unmap, nil
}

// OpenMapped is Open for a file mapped into memory instead of read: a search process starts on a large index
// without reading it. The mapping lives as long as the index (it is never unmapped, since searches may hold
// vectors from it); pages the index later writes are private copies, never the file.
func OpenMapped(path string, c Config, gen uint64) (*Auto, error) {
	a, err := NewAuto(c)
	if err != nil {
		return nil, err
	}
	hd, buf, unmap, err := mapPayload(path)
	if err != nil {
		return nil, err
	}
	if hd.generation != gen {
		unmap()
		return nil, fmt.Errorf("vector: load %s: generation %d, database is at %d: %w", path, hd.generation, gen, ErrStale)
	}
	ix, err := a.decode(path, hd, buf)
	if err != nil {
		unmap()
		return nil, err
	}
	a.mu.Lock()
	a.cur = ix
	a.mu.Unlock()
	a.gen.Store(hd.generation)
	return a, nil
}

// OpenMappedAny is OpenMapped whatever the file's generation, which it returns: the caller brings a stale index up
// to date with the changes since instead of rebuilding it.
func OpenMappedAny(path string, c Config) (*Auto, uint64, error) {
	a, err := NewAuto(c)
	if err != nil {
		return nil, 0, err
	}
	hd, buf, unmap, err := mapPayload(path)
	if err != nil {
		return nil, 0, err
	}
	ix, err := a.decode(path, hd, buf)
	if err != nil {
		unmap()
		return nil, 0, err
	}
	a.mu.Lock()
	a.cur = ix
	a.mu.Unlock()
	a.gen.Store(hd.generation)
	return a, hd.generation, nil
}
