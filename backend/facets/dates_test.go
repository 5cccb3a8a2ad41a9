package facets

import (
	"strings"
	"testing"
)

// Impossible dates are never facets or filters (issue 41, row 5): page text "2022-13-45", a photo's EXIF
// "2021:02:31", `--set date=2022-02-31`, `--where date=2022-13`.
func TestImpossibleDatesAreNotDates(t *testing.T) {
	for _, c := range []struct {
		name string
		src  Source
		want string
	}{
		{"a code shaped like a date on the cover", Source{FileName: "a.pdf", Pages: []string{"Form 2022-13-45\nIssued 2021-06-30"}}, "2021-06-30"},
		{"only an impossible day", Source{FileName: "b.pdf", Pages: []string{"Reference 2022-02-31 of the file"}}, ""},
		{"a PDF creation date with month 13", Source{FileName: "c.pdf", Info: map[string]string{"created": "D:20221345120000"}}, "2022"},
		{"a photo's impossible EXIF date", Source{FileName: "d.jpg", Taken: "2021-02-31"}, ""},
		{"a photo's real EXIF date", Source{FileName: "e.jpg", Taken: "2020-02-29"}, "2020-02-29"},
	} {
		if got := Extract(c.src).Date; got != c.want {
			t.Errorf("%s: date %q, want %q", c.name, got, c.want)
		}
	}
	for _, v := range []string{"2022-02-31", "2022-13", "2021-02-29", "2022-00"} {
		if _, err := checkDate(v); err == nil || !strings.Contains(err.Error(), "real date") {
			t.Errorf("set date=%s: %v, want refused", v, err)
		}
		if _, err := ParseWhere("date=" + v); err == nil {
			t.Errorf("--where date=%s: accepted", v)
		}
	}
	for _, v := range []string{"2024-02-29", "2022-12", "2022"} {
		if _, err := checkDate(v); err != nil {
			t.Errorf("set date=%s: %v", v, err)
		}
		if _, err := ParseWhere("date=" + v); err != nil {
			t.Errorf("--where date=%s: %v", v, err)
		}
	}
}

// A filter is bounded in size and in values with a clear error (issue 41, row 4); one within the bounds reads.
func TestWhereIsBounded(t *testing.T) {
	alts := func(n int) string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = "org" + strings.Repeat("x", i%3)
		}
		return "org=" + strings.Join(vs, "|")
	}
	if _, err := ParseWhere(alts(MaxWhereValues)); err != nil {
		t.Errorf("%d values: %v", MaxWhereValues, err)
	}
	if _, err := ParseWhere(alts(MaxWhereValues + 1)); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("%d values: %v, want refused", MaxWhereValues+1, err)
	}
	if _, err := ParseWhere("org=" + strings.Repeat("a", MaxWhereBytes)); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("a %d-byte filter: %v, want refused", MaxWhereBytes+4, err)
	}
}
