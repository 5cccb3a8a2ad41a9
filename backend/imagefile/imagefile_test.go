package imagefile

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"strings"
	"testing"

	"proofglass/backend/fixture"
)

func TestSniffByContent(t *testing.T) {
	cases := map[string]Kind{
		"pdf/real/blood_loss_report.pdf":              PDF,
		"bad/pdf/generated/jpeg-renamed.pdf":          JPEG,
		"bad/pdf/generated/text-renamed.pdf":          Unknown,
		"bad/pdf/generated/zero-bytes.pdf":            Unknown,
		"bad/image/generated/jpeg-renamed.png":        JPEG,
		"images/charts/fairs_data.png":                PNG,
		"images/photos/IMG_1054.JPG":                  JPEG,
		"bad/image/pillow/decompression_bomb.gif":     GIF,
		"video/mwe-example-movie.mp4":                 MP4,
		"video/gnome-display-dual-monitors.webm":      Matroska,
		"video/Shepard_Calais_1906_FrenchGP.160p.ogv": Ogg,
		"video/forensics-movie-hello.avi":             AVI,
		"video/forensics-movie-hello.mpeg":            MPEGPS,
	}
	for rel, want := range cases {
		t.Run(rel, func(t *testing.T) {
			got, err := SniffFile(fixture.Path(t, rel))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("Sniff = %q, want %q", got, want)
			}
		})
	}
	if Sniff([]byte("RIFF\x00\x00\x00\x00WEBPVP8 ")) != WebP || Sniff([]byte("II*\x00\x08\x00")) != TIFF {
		t.Error("synthetic WebP/TIFF headers not recognised")
	}
}

func decodeJPEG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func meanDiff(a, b image.Image) float64 {
	var d float64
	n := 0
	for y := 0; y < a.Bounds().Dy(); y++ {
		for x := 0; x < a.Bounds().Dx(); x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			d += absf(float64(r1)-float64(r2)) + absf(float64(g1)-float64(g2)) + absf(float64(b1)-float64(b2))
			n += 3
		}
	}
	return d / float64(n) / 0xffff
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestExifOrientation: after their tags are applied, the seven hopper images are the same upright portrait, while
// their stored pixels differ.
func TestExifOrientation(t *testing.T) {
	var ref image.Image
	var refRaw image.Image
	var rawSpread float64
	for o := 2; o <= 8; o++ {
		path := fixture.Path(t, fmt.Sprintf("images/exif-orientation/hopper_orientation_%d.jpg", o))
		res, err := ProcessFile(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Orientation != o {
			t.Errorf("%s: orientation %d, want %d", path, res.Orientation, o)
		}
		img := decodeJPEG(t, res.Normal)
		raw, _ := os.ReadFile(path)
		rawImg := decodeJPEG(t, raw)
		if ref == nil {
			ref, refRaw = img, rawImg
			continue
		}
		if d := meanDiff(ref, img); d > 0.05 {
			t.Errorf("orientation %d: upright image differs from orientation 2's by %.3f", o, d)
		}
		if d := meanDiff(refRaw, rawImg); d > rawSpread {
			rawSpread = d
		}
	}
	if rawSpread < 0.05 {
		t.Errorf("stored pixels of all seven are alike (%.3f): the test proves nothing", rawSpread)
	}
}

// TestTaken reads the date a photo was taken from real phone and camera JPEGs (as exiftool reads them); a photo
// whose EXIF was stripped, a broken EXIF block and a PNG have none.
func TestTaken(t *testing.T) {
	for rel, want := range map[string]string{
		"images/photos/IMG_1054.JPG":                       "2020-09-12", // DateTimeOriginal 2020:09:12 11:49:38
		"images/photos/IMG_20200124_231153.jpg":            "2020-01-24",
		"images/photos/IMG-20191006-WA0002.jpg":            "", // a messenger's copy: no EXIF
		"bad/image/pillow/invalid-exif.jpg":                "",
		"images/charts/var_irf.png":                        "",
		"images/exif-orientation/hopper_orientation_6.jpg": "",
	} {
		t.Run(rel, func(t *testing.T) {
			res, err := ProcessFile(fixture.Path(t, rel), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Taken != want {
				t.Errorf("taken %q, want %q", res.Taken, want)
			}
		})
	}
}

// TestTakenSurvivesBrokenEXIF: every truncation of a real EXIF block, and every single-byte change of it, reads as
// some date or none, never a panic or an out-of-range read.
func TestTakenSurvivesBrokenEXIF(t *testing.T) {
	b, err := os.ReadFile(fixture.Path(t, "images/photos/IMG_1054.JPG"))
	if err != nil {
		t.Fatal(err)
	}
	exif := jpegEXIF(b)
	if exif == nil {
		t.Fatal("no EXIF block found")
	}
	for n := 0; n < len(exif) && n < 4096; n++ {
		if d := jpegTakenTIFF(exif[:n]); d != "" && len(d) != 10 {
			t.Fatalf("truncated at %d: %q", n, d)
		}
	}
	for i := 0; i < len(exif) && i < 2048; i++ {
		c := append([]byte(nil), exif...)
		c[i] ^= 0xff
		if d := jpegTakenTIFF(c); d != "" && len(d) != 10 {
			t.Fatalf("byte %d changed: %q", i, d)
		}
	}
	if d := jpegTakenTIFF(exif); d != "2020-09-12" {
		t.Errorf("whole block: %q", d)
	}
}

func TestPhotos(t *testing.T) {
	cases := map[string]struct {
		orientation, w, h, nw, nh int
	}{
		"images/photos/IMG_20200124_231153.jpg":        {3, 4000, 3000, 2048, 1536},
		"images/photos/IMG_1054.JPG":                   {1, 1280, 960, 1280, 960},
		"images/photos/IMG-20191006-WA0002.jpg":        {1, 1024, 768, 1024, 768},
		"images/large/large-6000x4500-27MP.jpg":        {1, 6000, 4500, 2048, 1536},
		"images/charts/var_irf.png":                    {1, 1000, 1000, 1000, 1000},
		"bad/image/debian/empty.jpg":                   {1, 161, 1, 161, 1},
		"bad/image/generated/jpeg-renamed.png":         {1, 1000, 1520, 1000, 1520},
		"bad/image/pillow/invalid-exif.jpg":            {1, 200, 200, 200, 200},
		"bad/image/pillow/photoshop-200dpi-broken.jpg": {1, 200, 200, 200, 200},
	}
	for rel, tc := range cases {
		t.Run(rel, func(t *testing.T) {
			res, err := ProcessFile(fixture.Path(t, rel), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Orientation != tc.orientation || res.Width != tc.w || res.Height != tc.h {
				t.Errorf("got %dx%d orientation %d, want %dx%d orientation %d", res.Width, res.Height, res.Orientation, tc.w, tc.h, tc.orientation)
			}
			n := decodeJPEG(t, res.Normal)
			if n.Bounds().Dx() != tc.nw || n.Bounds().Dy() != tc.nh || res.NormalW != tc.nw {
				t.Errorf("normal %v, want %dx%d", n.Bounds(), tc.nw, tc.nh)
			}
			th := decodeJPEG(t, res.Thumb)
			if max(th.Bounds().Dx(), th.Bounds().Dy()) > 256 || th.Bounds().Dy() < 1 {
				t.Errorf("thumbnail %v", th.Bounds())
			}
		})
	}
}

// TestUpsideDownPhoto: the phone photo stored upside down (orientation 3) comes out rotated by 180°: its
// normalised image equals the stored pixels turned around.
func TestUpsideDownPhoto(t *testing.T) {
	path := fixture.Path(t, "images/photos/IMG_20200124_231153.jpg")
	res, err := ProcessFile(path, Options{NormalSide: 200})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	stored, err := Process("copy", stripExif(raw), Options{NormalSide: 200})
	if err != nil {
		t.Fatal(err)
	}
	a, b := decodeJPEG(t, res.Normal), decodeJPEG(t, stored.Normal)
	turned := orient(b, 3)
	if d := meanDiff(a, turned); d > 0.03 {
		t.Errorf("normalised photo differs from the stored pixels turned 180° by %.3f", d)
	}
	if d := meanDiff(a, b); d < 0.03 {
		t.Errorf("normalised photo equals the stored pixels (%.3f): orientation not applied", d)
	}
}

// stripExif renames the APP1 Exif marker so the orientation is no longer found.
func stripExif(b []byte) []byte {
	c := bytes.Clone(b)
	if i := bytes.Index(c, []byte("Exif\x00\x00")); i > 0 {
		c[i] = 'X'
	}
	return c
}

func TestBadImages(t *testing.T) {
	cases := map[string]error{
		"bad/image/generated/zero-bytes.png":                                    ErrEmpty,
		"bad/image/generated/png-bomb-100000x100000.png":                        ErrTooLarge,
		"bad/image/generated/png-bomb-20000x20000.png":                          ErrTooLarge,
		"bad/image/pillow/broken.png":                                           ErrCorrupt,
		"bad/image/pillow/broken_data_stream.png":                               ErrCorrupt,
		"bad/image/pillow/truncated_image.png":                                  ErrCorrupt,
		"bad/image/pillow/truncated_jpeg.jpg":                                   ErrCorrupt,
		"bad/image/pillow/truncated_end_chunk.png":                              ErrCorrupt,
		"bad/image/pillow/hopper_bad_exif.jpg":                                  ErrCorrupt,
		"bad/image/pillow/decompression_bomb.gif":                               ErrCorrupt,
		"bad/image/pillow/pngtest_bad.png":                                      ErrUnsupported,
		"bad/image/pillow/oom-225817ca0f8c663be7ab4b9e717b02c661e66834.tif":     ErrCorrupt,
		"bad/image/pillow/oom-8ed3316a4109213ca96fb8a256a0bfefdece1461.icns":    ErrUnsupported,
		"bad/image/pillow/crash-0da013a13571cc8eb457a39fee8db18f8a3c7127.tif":   ErrCorrupt,
		"bad/image/pillow/crash-86214e58da443d2b80820cff9677a38a33dcbbca.tif":   ErrCorrupt,
		"bad/image/pillow/crash-1185209cf7655b5aed8ae5e77784dfdd18ab59e9.tif":   ErrCorrupt,
		"bad/image/pillow/crash-754d9c7ec485ffb76a90eeaab191ef69a2a3a3cd.sgi":   ErrUnsupported,
		"bad/image/pillow/crash-4fb027452e6988530aa5dabee76eecacb3b79f8a.j2k":   ErrUnsupported,
		"bad/image/pillow/timeout-060745d3f534ad6e4128c51d336ea5489182c69d.blp": ErrUnsupported,
		"bad/image/pillow/timeout-c60a3d7314213624607bfb3e38d551a8b24a7435.dds": ErrUnsupported,
		"bad/image/pillow/timeout-9139147ce93e20eb14088fe238e541443ffd64b3.fli": ErrUnsupported,
	}
	for rel, want := range cases {
		t.Run(rel, func(t *testing.T) {
			path := fixture.Path(t, rel)
			_, err := ProcessFile(path, Options{})
			if !errors.Is(err, want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// A real photo's EXIF date rewritten to a day that does not exist ("2021:02:31") reads as no date, not as a facet.
func TestTakenRefusesImpossibleDays(t *testing.T) {
	b, err := os.ReadFile(fixture.Path(t, "images/photos/IMG_1054.JPG"))
	if err != nil {
		t.Fatal(err)
	}
	exif := append([]byte(nil), jpegEXIF(b)...)
	n := 0
	for i := 0; i+10 <= len(exif); i++ {
		if string(exif[i:i+10]) == "2020:09:12" {
			copy(exif[i:], "2021:02:31")
			n++
		}
	}
	if n == 0 {
		t.Fatal("the photo's EXIF date was not found")
	}
	if d := jpegTakenTIFF(exif); d != "" {
		t.Errorf("taken %q from an EXIF date of 2021:02:31, want none", d)
	}
}
