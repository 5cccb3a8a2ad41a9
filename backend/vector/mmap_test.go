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
