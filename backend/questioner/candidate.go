package questioner

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// candidate is a question a page offers, not yet written out: finish writes it, maybe with one of its page words
// replaced by a near neighbour.
type candidate struct {
	kind string
	// keys are the page's words the question uses, in the order render takes them.
	keys   []string
	render func(keys []string) string
	value  string // a table cell's figure: the question must not hold it
	zh     bool
}

// candidates are all the questions a page offers, of every kind, but those whose words give their answer away
// (a row label that holds the cell's figure).
func candidates(pg *page, r *rand.Rand) []candidate {
	all := slices.Concat(tableCandidates(pg, r), captionCandidates(pg, r), headingCandidates(pg, r),
		sentenceCandidates(pg, r))
	return slices.DeleteFunc(all, func(c candidate) bool { return holdsFigure(c.render(c.keys), c.value) })
}

// swapChance is how often, in tenths, a question replaces one of its page words by a near neighbour, so that not
// every question can be found by its words alone.
const swapChance = 4

// finish writes a candidate out, or returns "" when it would give away its answer.
func finish(c candidate, r *rand.Rand) string {
	text := c.render(c.keys)
	if !c.zh && len(c.keys) > 0 && r.IntN(10) < swapChance {
		for _, i := range r.Perm(len(c.keys)) {
			k := c.keys[i]
			if contentWord(k) == "" || strings.ToLower(k) != k {
				continue
			}
			nb := near.of(k)
			if nb == "" {
				continue
			}
			keys := slices.Clone(c.keys)
			keys[i] = nb
			if alt := c.render(keys); !holdsFigure(alt, c.value) {
				text = alt
			}
			break
		}
	}
	if holdsFigure(text, c.value) {
		return ""
	}
	return text
}

// wordsOf splits a phrase into its words, for a candidate's keys.
func wordsOf(s string) []string { return strings.Fields(s) }

// pickOne is one of the choices, at random.
func pickOne[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }
