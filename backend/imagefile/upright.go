package imagefile

import (
	"bytes"
	"fmt"
	"image"
)

// DecodeUpright decodes an original image file and turns it upright by its EXIF orientation, as Process does: the
// full-resolution pixels behind a unit's normalised copy (crops of large images are cut from these).
func DecodeUpright(name string, b []byte) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("image %s: %w: decoder panicked: %v", name, ErrCorrupt, r)
		}
	}()
	img, _, err = image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("image %s: %w: %v", name, ErrCorrupt, err)
	}
	if Sniff(b[:min(len(b), SniffLen)]) == JPEG {
		img = orient(img, jpegOrientation(b))
	}
	return img, nil
}
