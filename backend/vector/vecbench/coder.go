//go:build !windows

package vecbench

import (
	"bufio"
	"fmt"
	"os"

	"github.com/coder/hnsw"
)

// coderIndex adapts github.com/coder/hnsw v0.6.1, the library our HNSW replaces, so the benchmark can show the
// difference. Every call is guarded: that version panics in several situations, and a panic is a result here.
type coderIndex struct {
	g *hnsw.Graph[int64]
}

func newCoder(m, ef int) *coderIndex {
	g := hnsw.NewGraph[int64]()
	g.M = m
	g.EfSearch = ef
	g.Distance = hnsw.CosineDistance
	return &coderIndex{g: g}
}

func guard(what string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("coder/hnsw %s panicked: %v", what, r)
	}
}

func (c *coderIndex) add(id int64, v []float32) (err error) {
	defer guard("Add", &err)
	c.g.Add(hnsw.MakeNode(id, v))
	return nil
}

func (c *coderIndex) search(q []float32, k int) (ids []int64, err error) {
	defer guard("Search", &err)
	for _, n := range c.g.Search(q, k) {
		ids = append(ids, n.Key)
	}
	return ids, nil
}

func (c *coderIndex) save(path string) (err error) {
	defer guard("Export", &err)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := c.g.Export(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func loadCoder(path string) (c *coderIndex, err error) {
	defer guard("Import", &err)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g := hnsw.NewGraph[int64]()
	if err := g.Import(bufio.NewReader(f)); err != nil {
		return nil, err
	}
	return &coderIndex{g: g}, nil
}
