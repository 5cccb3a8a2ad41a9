package imagefile

import (
	"encoding/binary"
	"image"
	"time"
)

// jpegOrientation returns the EXIF Orientation (1..8) of a JPEG, or 1 when it has none or the EXIF block is
// malformed: a bad EXIF block must never stop the image from being used.
func jpegOrientation(b []byte) int {
	if t, ok := parseTIFF(jpegEXIF(b)); ok {
		if typ, _, v, ok := t.entry(t.ifd0, 0x0112); ok && typ == 3 { // SHORT
			if o := int(t.bo.Uint16(t.b[v:])); o >= 1 && o <= 8 {
				return o
			}
		}
	}
	return 1
}

// TakenHeadBytes is how much of a JPEG Taken needs: its EXIF block is an APP1 segment, at most 64 KB, near the start.
const TakenHeadBytes = 128 << 10

// Taken returns the date a JPEG's EXIF says it was taken (YYYY-MM-DD), read from the file's first TakenHeadBytes,
// or "" for any other file or when it says none.
func Taken(head []byte) string { return jpegTaken(head) }

// jpegTaken returns the date a JPEG's EXIF says the picture was taken (DateTimeOriginal, else the IFD0 DateTime),
// as YYYY-MM-DD, or "" when it says none or says it badly.
func jpegTaken(b []byte) string { return jpegTakenTIFF(jpegEXIF(b)) }

func jpegTakenTIFF(b []byte) string {
	t, ok := parseTIFF(b)
	if !ok {
		return ""
	}
	if _, _, v, ok := t.entry(t.ifd0, 0x8769); ok { // the Exif IFD
		if d := t.date(int(t.bo.Uint32(t.b[v:])), 0x9003); d != "" {
			return d
		}
	}
	return t.date(t.ifd0, 0x0132)
}

// jpegEXIF returns the TIFF structure inside a JPEG's EXIF block (APP1), or nil.
func jpegEXIF(b []byte) []byte {
	if len(b) < 4 || b[0] != 0xff || b[1] != 0xd8 {
		return nil
	}
	i := 2
	for i+4 <= len(b) {
		if b[i] != 0xff {
			return nil
		}
		marker := b[i+1]
		if marker == 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker == 0x01 || marker == 0xff {
			i++
			continue
		}
		if marker == 0xda || marker == 0xd9 { // start of scan / end: no EXIF before the pixels
			return nil
		}
		size := int(binary.BigEndian.Uint16(b[i+2:]))
		if size < 2 || i+2+size > len(b) {
			return nil
		}
		seg := b[i+4 : i+2+size]
		if marker == 0xe1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			return seg[6:]
		}
		i += 2 + size
	}
	return nil
}

// tiff is a parsed TIFF header: its bytes, byte order and the offset of IFD0.
type tiff struct {
	b    []byte
	bo   binary.ByteOrder
	ifd0 int
}

func parseTIFF(b []byte) (tiff, bool) {
	if len(b) < 8 {
		return tiff{}, false
	}
	t := tiff{b: b}
	switch string(b[:2]) {
	case "II":
		t.bo = binary.LittleEndian
	case "MM":
		t.bo = binary.BigEndian
	default:
		return tiff{}, false
	}
	if t.bo.Uint16(b[2:]) != 42 {
		return tiff{}, false
	}
	t.ifd0 = int(t.bo.Uint32(b[4:]))
	return t, t.ifd0 >= 8 && t.ifd0+2 <= len(b)
}

// entry finds tag in the IFD at off: its type, count and the offset of its value (inline when it fits in four
// bytes), checked to lie inside the structure.
func (t tiff) entry(off int, tag uint16) (typ uint16, count uint32, value int, ok bool) {
	if off < 8 || off+2 > len(t.b) {
		return 0, 0, 0, false
	}
	n := int(t.bo.Uint16(t.b[off:]))
	for k := 0; k < n; k++ {
		e := off + 2 + 12*k
		if e+12 > len(t.b) {
			return 0, 0, 0, false
		}
		if t.bo.Uint16(t.b[e:]) != tag {
			continue
		}
		typ, count = t.bo.Uint16(t.b[e+2:]), t.bo.Uint32(t.b[e+4:])
		size := uint64(count) * uint64(typeSize(typ))
		value = e + 8
		if size > 4 {
			value = int(t.bo.Uint32(t.b[e+8:]))
		}
		if size == 0 || uint64(value)+size > uint64(len(t.b)) {
			return 0, 0, 0, false
		}
		return typ, count, value, true
	}
	return 0, 0, 0, false
}

// date reads an ASCII date tag ("YYYY:MM:DD HH:MM:SS") of the IFD at off as YYYY-MM-DD.
func (t tiff) date(off int, tag uint16) string {
	typ, count, v, ok := t.entry(off, tag)
	if !ok || typ != 2 || count < 10 {
		return ""
	}
	s := string(t.b[v : v+10])
	y, m, d := atoi4(s[0:4]), atoi4(s[5:7]), atoi4(s[8:10])
	if s[4] != ':' || s[7] != ':' || y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31 {
		return "" // cameras without a clock write "0000:00:00 00:00:00"
	}
	date := s[0:4] + "-" + s[5:7] + "-" + s[8:10]
	if _, err := time.Parse("2006-01-02", date); err != nil {
		return "" // "2021:02:31" has the shape of a date but names no day
	}
	return date
}

// typeSize is the size in bytes of one value of a TIFF field type (0 for an unknown type).
func typeSize(typ uint16) int {
	switch typ {
	case 1, 2, 6, 7: // BYTE, ASCII, SBYTE, UNDEFINED
		return 1
	case 3, 8: // SHORT, SSHORT
		return 2
	case 4, 9, 11: // LONG, SLONG, FLOAT
		return 4
	case 5, 10, 12: // RATIONAL, SRATIONAL, DOUBLE
		return 8
	}
	return 0
}

// atoi4 parses a short run of ASCII digits; anything else gives -1.
func atoi4(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// orient returns img turned upright for EXIF orientation o (1..8).
func orient(img image.Image, o int) image.Image {
	if o <= 1 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	swap := o >= 5
	ow, oh := w, h
	if swap {
		ow, oh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, ow, oh))
	src := toRGBA(img)
	for y := 0; y < h; y++ {
		row := src.Pix[y*src.Stride:]
		for x := 0; x < w; x++ {
			var dx, dy int
			switch o {
			case 2: // mirrored horizontally
				dx, dy = w-1-x, y
			case 3: // rotated 180
				dx, dy = w-1-x, h-1-y
			case 4: // mirrored vertically
				dx, dy = x, h-1-y
			case 5: // transposed
				dx, dy = y, x
			case 6: // rotated 90 clockwise to display
				dx, dy = h-1-y, x
			case 7: // transversed
				dx, dy = h-1-y, w-1-x
			case 8: // rotated 90 counter-clockwise to display
				dx, dy = y, w-1-x
			}
			copy(dst.Pix[dy*dst.Stride+dx*4:dy*dst.Stride+dx*4+4], row[x*4:x*4+4])
		}
	}
	return dst
}
