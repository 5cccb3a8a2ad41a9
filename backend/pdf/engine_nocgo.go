//go:build !cgo

package pdf

import (
	"errors"
	"fmt"
	"image"
)

// Without cgo there is no MuPDF: the package still builds (so `GOOS=darwin CGO_ENABLED=0 go vet ./...` checks the
// module where no C cross-compiler is at hand), and opening a document says why it cannot.
var errNoMuPDF = errors.New("pdf: this build has no MuPDF (built without cgo)")

var errClosed = errors.New("pdf: document closed")

type engineDoc struct {
	path  string
	pages int
}

func openEngine(path, password string, lim Limits) (*engineDoc, error) {
	return openEngineAs(path, password, "", lim)
}

func openEngineAs(path, _, _ string, _ Limits) (*engineDoc, error) {
	return nil, fmt.Errorf("pdf %s: %w", path, errNoMuPDF)
}

func (*engineDoc) close()                                 {}
func (*engineDoc) info() Info                             { return Info{} }
func (*engineDoc) pageSize(int) (w, h float64, err error) { return 0, 0, errNoMuPDF }
func (*engineDoc) text(int) (string, []Word, error)       { return "", nil, errNoMuPDF }
func (*engineDoc) imageBoxes(int) ([]Box, error)          { return nil, errNoMuPDF }
func (*engineDoc) textWire(_ int, text, wire []byte) ([]byte, []byte, error) {
	return text, wire, errNoMuPDF
}
func (*engineDoc) textRender(int, float64, int, []byte, func([]byte, Box, int)) (image.Image, []byte, error) {
	return nil, nil, errNoMuPDF
}
func (*engineDoc) render(int, float64, *Box, int) (image.Image, float64, error) {
	return nil, 0, errNoMuPDF
}

func releaseImage(image.Image) {}

func appendJPEG(dst []byte, _ image.Image, _ int) ([]byte, bool, error) { return dst, false, nil }

func initWorker() {}
