package vecbench

import "errors"

// coder/hnsw v0.6.1 does not build on Windows (its renameio dependency has no TempFile there), so the comparison
// row reports that instead.
type coderIndex struct{ g coderGraph }

type coderGraph struct{}

func (coderGraph) Delete(int64) bool { return false }

var errNoCoder = errors.New("coder/hnsw v0.6.1 does not build on windows")

func newCoder(m, ef int) *coderIndex                             { return &coderIndex{} }
func (c *coderIndex) add(id int64, v []float32) error            { return errNoCoder }
func (c *coderIndex) search(q []float32, k int) ([]int64, error) { return nil, errNoCoder }
func (c *coderIndex) save(path string) error                     { return errNoCoder }
func loadCoder(path string) (*coderIndex, error)                 { return nil, errNoCoder }
