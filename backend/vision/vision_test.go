package vision

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"proofglass/backend/fixture"
)

func testdata(t testing.TB) string { return fixture.Dir(t) }

func TestSmartResize(t *testing.T) {
	// Expected values worked from the formula in vrag.md §2a: round(side/f)·f, then √ area rescale with floor/ceil.
	cases := map[string]struct {
		in   Size
		enc  Encoder
		want Size
	}{
		// §2a worked examples: the images VRAG sends, as the Qwen2.5-VL processor re-sizes them.
		"1024x768 slide after process_image":  {Size{731, 548}, Qwen25VL, Size{728, 560}}, // 26.1→26, 19.57→20
		"5334x3000 slide after process_image": {Size{844, 475}, Qwen25VL, Size{840, 476}}, // 30.14→30, 16.96→17
		// Too large: 1988x1512 > 1,003,520 → β=√(3e6/1003520)=1.72901; floor(1156.7/28)=41, floor(867.5/28)=30.
		"2000x1500 raw page": {Size{2000, 1500}, Qwen25VL, Size{1148, 840}},
		"1024x768 raw":       {Size{1024, 768}, Qwen25VL, Size{1036, 756}},
		"5334x3000 raw":      {Size{5334, 3000}, Qwen25VL, Size{1316, 728}},
		// Too small: 28x28 < 3136 → β=√(3136/600)=2.2862; ceil(45.72/28)=2, ceil(68.59/28)=3.
		"20x30 tiny": {Size{20, 30}, Qwen25VL, Size{56, 84}},
		// Python's round is half-to-even: 70/28 = 2.5 → 2.
		"70x70 half to even": {Size{70, 70}, Qwen25VL, Size{56, 56}},
		"qwen3 1024x768":     {Size{1024, 768}, Qwen3VL, Size{1024, 768}},
		"qwen3 731x548":      {Size{731, 548}, Qwen3VL, Size{736, 544}},
		// Qwen3 min 65,536: 56x84 → β=√(65536/600)=10.451; ceil(209/32)=7·32=224, ceil(313.5/32)=10·32=320.
		"qwen3 20x30 tiny": {Size{20, 30}, Qwen3VL, Size{224, 320}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := c.enc.Resize(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("Resize(%v) = %v, want %v", c.in, got, c.want)
			}
			if got.W%c.enc.Factor != 0 || got.H%c.enc.Factor != 0 {
				t.Fatalf("%v is not a multiple of %d", got, c.enc.Factor)
			}
		})
	}
}

func TestSmartResizeRejects(t *testing.T) {
	for name, s := range map[string]Size{"zero": {0, 10}, "negative": {-5, 10}, "aspect 201": {201, 1}} {
		t.Run(name, func(t *testing.T) {
			if _, err := Qwen25VL.Resize(s); err == nil {
				t.Fatalf("Resize(%v) succeeded", s)
			}
		})
	}
}

func TestVRAGSize(t *testing.T) {
	cases := map[string]struct{ in, want Size }{
		// √(401408/786432)=0.714435: 731.58→731, 548.69→548 (§2a).
		"1024x768":  {Size{1024, 768}, Size{731, 548}},
		"5334x3000": {Size{5334, 3000}, Size{844, 475}},
		"2000x1500": {Size{2000, 1500}, Size{731, 548}},
		// Below 200,704: √(200704/60000)=1.82897: 548.69→548, 365.79→365.
		"300x200 upscaled": {Size{300, 200}, Size{548, 365}},
		"in range kept":    {Size{600, 500}, Size{600, 500}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := VRAGSize(c.in); got != c.want {
				t.Fatalf("VRAGSize(%v) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	cases := map[string]struct {
		in   Size
		enc  Encoder
		want int
	}{
		"vrag page 731x548 → 728x560":  {Size{731, 548}, Qwen25VL, 26 * 20},
		"vrag slide 844x475 → 840x476": {Size{844, 475}, Qwen25VL, 30 * 17},
		"qwen3 1024x768":               {Size{1024, 768}, Qwen3VL, 32 * 24},
		"invalid":                      {Size{0, 0}, Qwen3VL, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := c.enc.Tokens(c.in); got != c.want {
				t.Fatalf("Tokens(%v) = %d, want %d", c.in, got, c.want)
			}
		})
	}
}

func near(a, b [4]float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

func TestMapBBox(t *testing.T) {
	page := View{Region: Full(Size{2000, 1500}), Encoded: Size{728, 560}}
	// First crop: sx = 2000/728, sy = 1500/560, then ±56 px in raw pixels.
	first := [4]float64{100*2000.0/728 - 56, 200*1500.0/560 - 56, 300*2000.0/728 + 56, 400*1500.0/560 + 56}
	// The crop's raw pixels: round-half-even of the padded box → 661x647 → sent 640x626 → encoder 644x616.
	crop := View{Region: Rect{first[0], first[1], first[2], first[3]}, Encoded: Size{644, 616}}
	cases := map[string]struct {
		v    View
		box  [4]float64
		want [4]float64
	}{
		"2000x1500 page":     {page, [4]float64{100, 200, 300, 400}, first},
		"numbers":            {page, [4]float64{100, 200, 300, 400}, [4]float64{218.72527472527474, 479.71428571428567, 880.1758241758242, 1127.4285714285713}},
		"whole frame clamps": {page, [4]float64{0, 0, 728, 560}, [4]float64{0, 0, 2000, 1500}},
		"swapped corners":    {page, [4]float64{300, 400, 100, 200}, first},
		"5334x3000 slide":    {View{Full(Size{5334, 3000}), Size{840, 476}}, [4]float64{420, 238, 840, 476}, [4]float64{2611, 1444, 5334, 3000}},
		// Crop of a crop: the box is in the crop's encoder frame and maps into page pixels through the crop's region.
		"crop of crop top-left": {crop, [4]float64{0, 0, 322, 308}, [4]float64{218.72527472527474, 479.71428571428567, 605.4505494505495, 859.5714285714284}},
		"crop of crop middle":   {crop, [4]float64{300, 300, 600, 600}, [4]float64{470.8544126680773, 739.1595547309832, 880.1758241758242, 1127.4285714285713}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := MapBBox(c.v, c.box, CropPad)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.Array(), c.want) {
				t.Fatalf("MapBBox(%v) = %v, want %v", c.box, got.Array(), c.want)
			}
		})
	}
	pr := PixelRect(Rect{first[0], first[1], first[2], first[3]}, Size{2000, 1500})
	if pr.Dx() != 661 || pr.Dy() != 647 {
		t.Fatalf("crop pixels %v, want 661x647", pr)
	}
	if got := VRAGSize(Size{661, 647}); got != (Size{640, 626}) {
		t.Fatalf("crop sent at %v, want 640x626", got)
	}
	if got, _ := Qwen25VL.Resize(Size{640, 626}); got != (Size{644, 616}) {
		t.Fatalf("crop encoder frame %v, want 644x616", got)
	}
}

func TestMapBBoxRejects(t *testing.T) {
	page := View{Region: Full(Size{2000, 1500}), Encoded: Size{728, 560}}
	cases := map[string]struct {
		v   View
		box [4]float64
	}{
		"negative":      {page, [4]float64{-1, 0, 10, 10}},
		"nan":           {page, [4]float64{math.NaN(), 0, 10, 10}},
		"outside frame": {page, [4]float64{5000, 5000, 6000, 6000}},
		"no image":      {View{}, [4]float64{0, 0, 10, 10}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := MapBBox(c.v, c.box, CropPad); !errors.Is(err, ErrBadBBox) {
				t.Fatalf("MapBBox(%v) error = %v, want ErrBadBBox", c.box, err)
			}
		})
	}
}

func TestParseBBox(t *testing.T) {
	ok := map[string][4]float64{
		"[1, 2, 3, 4]":       {1, 2, 3, 4},
		"[10.5, 20, 30, 40]": {10.5, 20, 30, 40},
		" [ 1,2 ,3, 4 ] ":    {1, 2, 3, 4},
		"(1, 2, 3, 4)":       {1, 2, 3, 4},
		"1 2 3 4":            {1, 2, 3, 4},
		"[[1, 2, 3, 4]]":     {1, 2, 3, 4},
	}
	for in, want := range ok {
		t.Run("ok "+in, func(t *testing.T) {
			got, err := ParseBBox(in)
			if err != nil || got != want {
				t.Fatalf("ParseBBox(%q) = %v, %v; want %v", in, got, err, want)
			}
		})
	}
	for _, in := range []string{"", "[1, 2, 3]", "[1, 2, 3, 4, 5]", "[1, -2, 3, 4]", "[a, b, c, d]", "[1, 2, 3, NaN]", "[1, 2, 3, Inf]"} {
		t.Run("bad "+in, func(t *testing.T) {
			if _, err := ParseBBox(in); !errors.Is(err, ErrBadBBox) {
				t.Fatalf("ParseBBox(%q) error = %v, want ErrBadBBox", in, err)
			}
		})
	}
}

func FuzzParseBBox(f *testing.F) {
	for _, s := range []string{"[1, 2, 3, 4]", "[1e308, 2, 3, 4]", "((", "[-0, 0, 0, 0]", "[0x10, 1, 2, 3]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBBox(s)
		if err != nil {
			return
		}
		for _, c := range b {
			if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
				t.Fatalf("ParseBBox(%q) accepted %v", s, b)
			}
		}
		// Whatever parsed must map without panicking.
		_, _ = MapBBox(View{Region: Full(Size{100, 100}), Encoded: Size{56, 56}}, b, CropPad)
	})
}

func TestEncodeJPEGUnder(t *testing.T) {
	dir := testdata(t)
	data, err := os.ReadFile(filepath.Join(dir, "images", "photos", "IMG_1054.JPG"))
	if err != nil {
		t.Skipf("photo missing: %v", err)
	}
	img, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	// VimRAG: ≤ 1,003,520 px, q75, then ≤ 38,000 bytes.
	fitted := FitImage(img, 1003520)
	if SizeOf(fitted).Pixels() > 1003520 {
		t.Fatalf("FitImage gave %v", SizeOf(fitted))
	}
	full, err := EncodeJPEG(fitted, DefaultQuality)
	if err != nil {
		t.Fatal(err)
	}
	out, s, err := EncodeJPEGUnder(fitted, MemoryJPEGBytes, DefaultQuality)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > MemoryJPEGBytes {
		t.Fatalf("encoded %d bytes, cap %d", len(out), MemoryJPEGBytes)
	}
	if len(full) <= MemoryJPEGBytes {
		t.Fatalf("test photo too small to exercise the cap: %d bytes", len(full))
	}
	if s.Pixels() >= SizeOf(fitted).Pixels() {
		t.Fatalf("size %v not reduced from %v", s, SizeOf(fitted))
	}
	back, err := Decode(out)
	if err != nil || SizeOf(back) != s {
		t.Fatalf("round trip: %v %v, want %v", SizeOf(back), err, s)
	}
	// Under the cap already: unchanged size.
	small := Resize(img, Size{64, 48})
	_, s2, err := EncodeJPEGUnder(small, MemoryJPEGBytes, DefaultQuality)
	if err != nil || s2 != (Size{64, 48}) {
		t.Fatalf("small image: %v %v", s2, err)
	}
}

func TestCrop(t *testing.T) {
	dir := testdata(t)
	data, err := os.ReadFile(filepath.Join(dir, "images", "charts", "bkf_plot.png"))
	if err != nil {
		t.Skipf("chart missing: %v", err)
	}
	img, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	s := SizeOf(img)
	c := Crop(img, Rect{10.5, 20.4, 110.5, 70.6})
	// Half to even: 10.5→10, 110.5→110; 20.4→20, 70.6→71.
	if got := SizeOf(c); got != (Size{100, 51}) {
		t.Fatalf("crop size %v, want 100x51", got)
	}
	r, g, b, _ := c.At(c.Bounds().Min.X, c.Bounds().Min.Y).RGBA()
	r2, g2, b2, _ := img.At(img.Bounds().Min.X+10, img.Bounds().Min.Y+20).RGBA()
	if r != r2 || g != g2 || b != b2 {
		t.Fatal("crop origin pixel differs from the source pixel at (10,20)")
	}
	if got := SizeOf(Crop(img, Rect{-5, -5, 1e9, 1e9})); got != s {
		t.Fatalf("oversized crop %v, want clamp to %v", got, s)
	}
}
