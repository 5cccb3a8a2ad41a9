package search

import (
	"context"
	"regexp"
)

// The figure-intent signal. A question about what a figure shows without naming it ("how many strategies are
// plotted", "the loss curve image") is answered on a page that holds a figure; a page's caption line ("Figure 4:
// …", "Fig. 2.") is the page text's trace of one. Among the best candidates, the pages with a caption are listed
// in fused order.

// figureIntentRE matches the words that ask about a figure.
var figureIntentRE = regexp.MustCompile(`(?i)\b(figures?|fig\.|images?|pictures?|photos?|photographs?|diagrams?|plot|plots|plotted|charts?|graphs?|illustrat\w*|depict\w*|drawings?|drawn)\b`)

// anyCaptionRE matches a figure caption line of any number.
var anyCaptionRE = regexp.MustCompile(`(?im)^\s*(?:figure|fig\s*\.?)\s*\d+[a-z]?\s*[:.|—–-]`)

// figureDepth is how many of the best fused candidates are read for captions.
const figureDepth = 30

func (s *Searcher) figureSignal(ctx context.Context, fused []fusedUnit, base map[int64]float64) (signal, error) {
	n := min(len(fused), figureDepth)
	ids := make([]int64, n)
	for i := range n {
		ids[i] = fused[i].id
	}
	texts, err := s.unitTexts(ctx, ids)
	if err != nil {
		return signal{}, err
	}
	var sig signal
	for _, id := range ids {
		if anyCaptionRE.MatchString(texts[id]) {
			sig.ids = append(sig.ids, id)
			sig.scores = append(sig.scores, 0)
		}
	}
	sortByKeyThenBase(&sig, base, false)
	return sig, nil
}
