package vision

import "testing"

func TestScaleToWidth(t *testing.T) {
	for name, c := range map[string]struct {
		w, h                      float64
		width, maxSide, maxPixels int
		want                      Size
	}{
		"a page region at its width":   {800, 600, 400, 4096, 4 << 20, Size{400, 300}},
		"zoomed in":                    {100, 50, 1000, 4096, 4 << 20, Size{1000, 500}},
		"a 0.001-wide sliver at 2048":  {1.654, 2339, 2048, 4096, 4 << 20, Size{3, 4096}},
		"a thin strip across the page": {1654, 2.3, 2048, 4096, 4 << 20, Size{2048, 3}},
		"the pixel bound":              {2000, 2000, 2048, 4096, 1 << 20, Size{1024, 1024}},
		"no side bound":                {10, 10, 100, 0, 0, Size{100, 100}},
		"never below a pixel":          {1, 100000, 64, 4096, 4 << 20, Size{1, 4096}},
	} {
		t.Run(name, func(t *testing.T) {
			got := ScaleToWidth(c.w, c.h, c.width, c.maxSide, c.maxPixels)
			if got != c.want {
				t.Fatalf("ScaleToWidth(%g, %g, %d) = %v, want %v", c.w, c.h, c.width, got, c.want)
			}
			if c.maxSide > 0 && (got.W > c.maxSide || got.H > c.maxSide) {
				t.Errorf("%v has a side over %d", got, c.maxSide)
			}
			if c.maxPixels > 0 && got.W*got.H > c.maxPixels {
				t.Errorf("%v is over %d pixels", got, c.maxPixels)
			}
		})
	}
}
