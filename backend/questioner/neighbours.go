package questioner

import (
	"math"
	"strings"
	"sync"
	"unicode"
)

// neighbourWords bounds the words a near neighbour is drawn from to GloVe's most frequent: rare neighbours are
// mostly misspellings and names, and a smaller matrix keeps a search to a millisecond.
const neighbourWords = 20000

// minNeighbourCosine is the least similarity a replacement needs: below it GloVe's nearest word is mostly one of
// the same topic (bleeding, stomach) rather than one that means the same (methods, techniques).
const minNeighbourCosine = 0.8

// neighbours finds and caches near neighbours of words in the frequent part of the GloVe table.
type neighbours struct {
	once  sync.Once
	words []string
	unit  []float32 // the frequent words' vectors, normalised, row after row
	dim   int

	mu    sync.Mutex
	cache map[string]string
}

var near neighbours

// opposites are pairs GloVe puts side by side though they mean the reverse: a question that swapped one for the
// other would ask for what the page does not say.
var opposites = func() map[[2]string]bool {
	m := map[[2]string]bool{}
	for _, p := range [][2]string{{"increase", "decrease"}, {"increased", "decreased"}, {"increase", "reduce"}, {"increased", "reduced"},
		{"increases", "decreases"}, {"increasing", "decreasing"}, {"patients", "doctors"}, {"patient", "doctor"}, {"higher", "lower"}, {"larger", "small"}, {"smaller", "large"},
		{"largest", "smallest"}, {"higher", "low"}, {"lower", "high"}, {"better", "worse"}, {"more", "fewer"},
		{"high", "low"}, {"positive", "negative"}, {"larger", "smaller"}, {"large", "small"}, {"maximum", "minimum"},
		{"before", "after"}, {"above", "below"}, {"left", "right"}, {"male", "female"}, {"women", "men"},
		{"first", "last"}, {"early", "late"}, {"upper", "lower"}, {"import", "export"}, {"imports", "exports"},
		{"gain", "loss"}, {"profit", "loss"}, {"income", "expense"}, {"revenue", "expenses"}, {"rise", "fall"},
		{"north", "south"}, {"east", "west"}, {"input", "output"}, {"inner", "outer"}, {"prior", "subsequent"},
		{"previous", "next"}, {"open", "closed"}, {"start", "end"}, {"begin", "end"}, {"buy", "sell"},
		{"assets", "liabilities"}, {"debit", "credit"}, {"mother", "father"}, {"daughter", "son"},
		{"maternal", "paternal"}, {"prepartum", "postpartum"}, {"minor", "major"}, {"inside", "outside"},
		{"younger", "older"}, {"strong", "weak"}, {"success", "failure"}, {"accept", "reject"}, {"true", "false"}} {
		m[p] = true
		m[[2]string{p[1], p[0]}] = true
	}
	return m
}()

func (n *neighbours) load() {
	t := table()
	if t == nil {
		return
	}
	count := min(neighbourWords, t.Len())
	n.dim = t.Dim()
	n.words = make([]string, count)
	n.unit = make([]float32, count*n.dim)
	for i := range count {
		n.words[i] = t.Word(i)
		v, _ := t.Vector(n.words[i])
		normalise(v)
		copy(n.unit[i*n.dim:], v)
	}
	n.cache = map[string]string{}
}

func normalise(v []float32) {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// of returns a near neighbour of w (lower-case) that can stand for it in a question, or "" when none is near
// enough. The answer is cached: a library asks about the same words again and again.
func (n *neighbours) of(w string) string {
	n.once.Do(n.load)
	if n.words == nil {
		return ""
	}
	n.mu.Lock()
	got, ok := n.cache[w]
	n.mu.Unlock()
	if ok {
		return got
	}
	got = n.search(w)
	n.mu.Lock()
	n.cache[w] = got
	n.mu.Unlock()
	return got
}

// search scans the frequent words for the one nearest w by cosine that is a fit replacement.
func (n *neighbours) search(w string) string {
	v, ok := table().Vector(w)
	if !ok {
		return ""
	}
	normalise(v)
	best, bestCos := "", float32(minNeighbourCosine)
	for i, cand := range n.words {
		row := n.unit[i*n.dim : (i+1)*n.dim]
		var c float32
		for j, x := range row {
			c += x * v[j]
		}
		if c > bestCos && fitReplacement(w, cand) {
			best, bestCos = cand, c
		}
	}
	return best
}

// fitReplacement reports whether cand may stand for w: another word of letters, not a stop word, not the same word
// inflected (w's plural says nothing new), of the same inflection, and not its opposite.
func fitReplacement(w, cand string) bool {
	if cand == w || len(cand) < 3 || isStop(cand) || opposites[[2]string{w, cand}] {
		return false
	}
	if strings.HasPrefix(cand, w) || strings.HasPrefix(w, cand) || sharedStem(w, cand) {
		return false
	}
	// A plural for a singular, or a participle for a noun, is most often a word of the topic, not of the meaning.
	for _, end := range []string{"ed", "ing", "ly"} {
		if strings.HasSuffix(w, end) != strings.HasSuffix(cand, end) {
			return false
		}
	}
	if plural(w) != plural(cand) {
		return false
	}
	for _, pre := range []string{"un", "in", "im", "non", "dis", "anti"} {
		if cand == pre+w || w == pre+cand {
			return false
		}
	}
	for _, r := range cand {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// sharedStem reports words that differ only past their first five letters ("calculated", "calculation").
func sharedStem(a, b string) bool {
	const n = 5
	return len(a) >= n && len(b) >= n && a[:n] == b[:n]
}
