package ocr

import (
	"strings"
)

// cjkRetryConf is the mean word confidence below which a page read with the alphabetic models alone is read again
// with the CJK ones. Measured on 300-dpi renders: English scans read 89–95 with eng alone; a Chinese page reads 47
// with eng alone (its characters become low-confidence Latin guesses) and 86 with eng+chi_sim.
const cjkRetryConf = 65

// isCJKModel reports whether a tesseract language is a Chinese, Japanese or Korean model (also their _vert forms).
func isCJKModel(l string) bool {
	for _, p := range []string{"chi_", "jpn", "kor"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// firstPass returns the languages of a page's first read: the configured ones without the CJK models, when there
// are both kinds. A CJK model costs 1.5–3× the CPU of eng on every page while most pages are not CJK, so those
// are only used on pages that need them (see cjkRetryConf). nil means a single pass with every language.
func firstPass(langs []string) []string {
	var alpha []string
	for _, l := range langs {
		if !isCJKModel(l) {
			alpha = append(alpha, l)
		}
	}
	if len(alpha) == 0 || len(alpha) == len(langs) {
		return nil
	}
	return alpha
}

// needsCJK reports whether a first-pass result looks like a page in a script the first pass could not read.
func needsCJK(r *Result) bool {
	return len(r.Words) > 0 && r.MeanConf < cjkRetryConf
}

// better picks the result to keep after a second pass: the CJK read, unless it is clearly worse.
func better(first, second *Result) *Result {
	if second.MeanConf+5 < first.MeanConf {
		return first
	}
	return second
}
