package pdf

/*
#include <stdlib.h>
#include "jpeg.h"
*/
import "C"

import (
	"fmt"
	"image"
	"unsafe"
)

// appendJPEG appends a render (grey or RGBA, as render returns them) encoded by jpeg.c to dst; ok is false for any
// other image type, which the caller encodes with image/jpeg.
func appendJPEG(dst []byte, img image.Image, quality int) (data []byte, ok bool, err error) {
	var pix []byte
	var stride, comps int
	switch m := img.(type) {
	case *image.Gray:
		pix, stride, comps = m.Pix, m.Stride, 1
	case *image.RGBA:
		pix, stride, comps = m.Pix, m.Stride, 4
	default:
		return nil, false, nil
	}
	r := img.Bounds()
	if r.Empty() {
		return nil, true, fmt.Errorf("encode jpeg: empty image")
	}
	var out *C.uchar
	var n C.size_t
	switch C.lp_jpeg((*C.uchar)(unsafe.Pointer(&pix[0])), C.int(r.Dx()), C.int(r.Dy()), C.int(stride), C.int(comps),
		C.int(quality), &out, &n) {
	case C.LP_JPEG_OK:
	case C.LP_JPEG_NOMEM:
		return nil, true, fmt.Errorf("encode jpeg: out of memory for %dx%d", r.Dx(), r.Dy())
	default:
		return nil, true, fmt.Errorf("encode jpeg: cannot encode a %dx%d image", r.Dx(), r.Dy())
	}
	defer C.free(unsafe.Pointer(out))
	return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(out)), int(n))...), true, nil
}
