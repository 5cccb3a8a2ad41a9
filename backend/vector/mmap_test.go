package vector

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A mapped index answers exactly as the saved one, keeps working when written to (adds, deletes, in-place
// replacement), and never writes into its file.
func TestOpenMappedMatchesSaved(t *testing.T) {
	vecs := lowRank(3000, 32, 8, 5)
	for name, crossover := range map[string]int{"exact": 100000, "hnsw": 1000} {
		t.Run(name, func(t *testing.T) {
			c := Config{Dims: 32, Metric: Cosine, Crossover: crossover}
			a, _ := NewAuto(c)
			if err := a.AddBatch(seqIDs(len(vecs), 1), vecs); err != nil {
				t.Fatal(err)
			}
			a.SetGeneration(9)
			path := filepath.Join(t.TempDir(), "ix.bin")
			if err := a.Save(path); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			if _, err := OpenMapped(path, c, 8); !errors.Is(err, ErrStale) {
				t.Fatalf("wrong generation: %v, want ErrStale", err)
			}
			m, err := OpenMapped(path, c, 9)
			if err != nil {
				t.Fatal(err)
			}
			if m.Kind() != a.Kind() || m.Len() != a.Len() {
				t.Fatalf("mapped %s/%d, saved %s/%d", m.Kind(), m.Len(), a.Kind(), a.Len())
			}
			for _, q := range vecs[:30] {
				ra, _ := a.Search(q, 10, nil)
				rm, _ := m.Search(q, 10, nil)
				if d := cmp.Diff(ra, rm); d != "" {
					t.Fatalf("mapped index answers differently (-saved +mapped):\n%s", d)
				}
			}
			// Writes: replace a vector in place, delete one, add new ones.
			if err := m.Add(1, vecs[2999]); err != nil {
				t.Fatal(err)
			}
			m.Delete(2)
			if err := m.AddBatch([]int64{5001, 5002}, [][]float32{vecs[10], vecs[11]}); err != nil {
				t.Fatal(err)
			}
			if res, _ := m.Search(vecs[11], 3, nil); len(res) == 0 || (res[0].ID != 5002 && res[0].ID != 12) {
				t.Errorf("new vector not found: %v", res)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Error("writing to the mapped index changed its file")
			}
			// A torn file is refused.
			if err := os.WriteFile(path, before[:len(before)-7], 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenMapped(path, c, 9); !errors.Is(err, ErrCorrupt) {
				t.Errorf("torn file: %v, want ErrCorrupt", err)
			}
		})
	}
}

// Adding to and deleting from a mapped exact index, in every storage, answers as an index built in memory from the
// same final vectors, before and after saving it again — and adding leaves the mapped rows where they are (not
// copied into the heap, which at library size cost tens of megabytes per ingest).
func TestMappedExactSegments(t *testing.T) {
	vecs := lowRank(1200, 16, 6, 11)
	for _, st := range []Storage{F32, F16, I8} {
		t.Run(st.String(), func(t *testing.T) {
			c := Config{Dims: 16, Metric: Cosine, Storage: st, Crossover: 1 << 20}
			saved, _ := NewExact(c)
			if err := saved.AddBatch(seqIDs(1000, 1), vecs[:1000]); err != nil {
				t.Fatal(err)
			}
			saved.SetGeneration(3)
			path := filepath.Join(t.TempDir(), "ix.bin")
			if err := saved.Save(path); err != nil {
				t.Fatal(err)
			}
			m, err := OpenMapped(path, c, 3)
			if err != nil {
				t.Fatal(err)
			}
			e := m.cur.(*Exact)
			mappedAt := e.base.ids[:1]
			// 200 new rows, then deletes from the mapped rows, from the new ones, and of the last row.
			if err := m.AddBatch(seqIDs(200, 1001), vecs[1000:]); err != nil {
				t.Fatal(err)
			}
			if &e.base.ids[0] != &mappedAt[0] || len(e.tail.ids) != 200 {
				t.Fatalf("adding moved the mapped rows (tail %d)", len(e.tail.ids))
			}
			// An id already in the mapped rows is replaced in place, found by bisection: no map of every id.
			if err := m.Add(5, vecs[1198]); err != nil {
				t.Fatal(err)
			}
			if m.Len() != 1200 || e.pos != nil {
				t.Fatalf("after adds: %d vectors (want 1200), id map built: %v", m.Len(), e.pos != nil)
			}
			gone := map[int64]bool{}
			for _, id := range []int64{1, 500, 1000, 1001, 1100, 1200, 7} {
				if !m.Delete(id) {
					t.Fatalf("delete %d: not found", id)
				}
				gone[id] = true
			}
			if err := m.Add(3, vecs[1199]); err != nil { // replaced in place, in the mapped rows
				t.Fatal(err)
			}
			fresh, _ := NewExact(c)
			for i, v := range vecs {
				id := int64(i + 1)
				switch id {
				case 3:
					v = vecs[1199]
				case 5:
					v = vecs[1198]
				}
				if !gone[id] {
					fresh.Add(id, v)
				}
			}
			check := func(label string, got Index) {
				t.Helper()
				if got.Len() != fresh.Len() {
					t.Fatalf("%s: %d vectors, want %d", label, got.Len(), fresh.Len())
				}
				for _, q := range vecs[:40] {
					want, _ := fresh.Search(q, 8, nil)
					res, _ := got.Search(q, 8, nil)
					if d := cmp.Diff(want, res); d != "" {
						t.Fatalf("%s answers differently (-fresh +got):\n%s", label, d)
					}
					allow := func(id int64) bool { return id%3 == 0 }
					want, _ = fresh.Search(q, 5, &Filter{Allow: allow})
					res, _ = got.Search(q, 5, &Filter{Allow: allow})
					if d := cmp.Diff(want, res); d != "" {
						t.Fatalf("%s filtered answers differ (-fresh +got):\n%s", label, d)
					}
					want, _ = fresh.Search(q, 5, &Filter{IDs: []int64{2, 4, 1003, 1150, 1199, 1}})
					res, _ = got.Search(q, 5, &Filter{IDs: []int64{2, 4, 1003, 1150, 1199, 1}})
					if d := cmp.Diff(want, res); d != "" {
						t.Fatalf("%s id-filtered answers differ (-fresh +got):\n%s", label, d)
					}
				}
			}
			check("mapped index with a tail", m)
			m.SetGeneration(4)
			path2 := filepath.Join(t.TempDir(), "ix2.bin")
			if err := m.Save(path2); err != nil {
				t.Fatal(err)
			}
			again, err := OpenMapped(path2, c, 4)
			if err != nil {
				t.Fatal(err)
			}
			check("its saved copy", again)
		})
	}
}
