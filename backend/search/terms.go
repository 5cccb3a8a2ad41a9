package search

import (
	"strings"
	"unicode/utf8"

	"proofglass/backend/glove"
	"proofglass/backend/kb"
)

// terms is a query split the way the indexes see it.
type terms struct {
	// words are the lower-case non-CJK word tokens without stop words (all tokens if the query is only stop words).
	words []string
	// cjk are the runs of CJK characters, which GloVe and unicode61 cannot match by word.
	cjk []string
	// stems maps the Porter stem of each word to the first query word with that stem, for hit boxes.
	stems map[string]string
}

// isCJK is the bigram index's test, so that query and index cut text the same way.
func isCJK(r rune) bool { return kb.IsCJKLetter(r) }

// cjkQuestionWords are the interrogatives of Chinese questions: they are in the question, not on the page that
// answers it, so they are cut out of CJK runs as English stop words are dropped.
var cjkQuestionWords = []string{"为什么", "是不是", "什么", "怎么", "怎样", "如何", "哪些", "哪个", "哪一", "哪种", "哪里",
	"是否", "能否", "可否", "多少", "请问"}

// cutQuestionWords splits a CJK run where it holds a question word, dropping the word.
func cutQuestionWords(run string) []string {
	pieces := []string{run}
	for _, w := range cjkQuestionWords {
		var next []string
		for _, p := range pieces {
			for _, part := range strings.Split(p, w) {
				if part != "" {
					next = append(next, part)
				}
			}
		}
		pieces = next
	}
	return pieces
}

// splitCJK calls fn for the maximal CJK and non-CJK parts of a word token.
func splitCJK(tok string, fn func(part string, cjk bool)) {
	start, cur := 0, false
	for i, r := range tok {
		c := isCJK(r)
		if i > start && c != cur {
			fn(tok[start:i], cur)
			start = i
		}
		if i == start {
			cur = c
		}
	}
	if start < len(tok) {
		fn(tok[start:], cur)
	}
}

func parseTerms(q string) terms {
	t := terms{stems: map[string]string{}}
	var all []string
	seen := map[string]bool{}
	glove.Tokens(q, func(tok string) {
		splitCJK(tok, func(part string, cjk bool) {
			if seen[part] {
				return
			}
			seen[part] = true
			switch {
			case cjk:
				pieces := cutQuestionWords(part)
				if len(pieces) == 0 { // a question of question words only: search them
					pieces = []string{part}
				}
				t.cjk = append(t.cjk, pieces...)
			case glove.IsStopWord(part):
				all = append(all, part)
			default:
				t.words = append(t.words, part)
			}
		})
	})
	if len(t.words) == 0 && len(t.cjk) == 0 {
		t.words = all
	}
	for _, w := range t.words {
		if s := stem(w); t.stems[s] == "" {
			t.stems[s] = w
		}
	}
	return t
}

func (t terms) empty() bool { return len(t.words) == 0 && len(t.cjk) == 0 }

// cjkKeys are the tokens of the bigram index a query's CJK runs are matched by: each run's overlapping character
// pairs (kb.CJKBigrams), without one-character runs, which match only where the page has them alone. nil when the
// runs give no pair.
func (t terms) cjkKeys() []string {
	var keys []string
	seen := map[string]bool{}
	for _, run := range t.cjk {
		kb.CJKBigrams(run, func(g string) {
			if utf8.RuneCountInString(g) == 2 && !seen[g] {
				seen[g] = true
				keys = append(keys, g)
			}
		})
	}
	return keys
}

const maxBoxes = 256

// mayMatch returns a filter that keeps every page word matchBoxes could mark (nil, all words, for CJK queries,
// which match across consecutive words).
func (t terms) mayMatch() func(string) bool {
	if len(t.cjk) > 0 {
		return nil
	}
	first := t.stemFirstBytes()
	return func(w string) bool { return mayStartLike(w, &first) }
}

// stemFirstBytes marks the first byte of every query stem: Porter rewrites only a word's ending, so a page token
// can share a query word's stem only if it starts with one of them.
func (t terms) stemFirstBytes() [256]bool {
	var first [256]bool
	for st := range t.stems {
		if st != "" {
			first[st[0]] = true
		}
	}
	return first
}

// mayStartLike reports whether a word can hold a token that starts with one of the bytes in first: false only for
// an ASCII word none of whose tokens (runs of letters and digits, lower-cased) does. Most of a page's words are
// ruled out here without tokenizing them.
func mayStartLike(w string, first *[256]bool) bool {
	prevAlnum := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return true // tokenizing decides
		}
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if alnum && !prevAlnum {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if first[c] {
				return true
			}
		}
		prevAlnum = alnum
	}
	return false
}

// matchBoxes returns the boxes of the words that hold a query term. Latin words match token by token, by Porter stem
// as the word index does ("degrees" boxes "degree"), and the box names the query word; CJK text,
// which has no spaces and may come as one box per character or per line, is matched as a substring over runs of
// consecutive CJK words, and every word the match overlaps gets a box.
func matchBoxes(words []kb.Word, t terms) []Box {
	var out []Box
	hit := make([]string, len(words)) // matched term per word, "" = none
	// A page repeats its words: stem each distinct token once (Porter is most of matchBoxes' time), and only tokens
	// that start like a query stem.
	matched := map[string]string{}
	first := t.stemFirstBytes()
	for i, w := range words {
		if !mayStartLike(w.Text, &first) {
			continue
		}
		glove.Tokens(w.Text, func(tok string) {
			if hit[i] != "" {
				return
			}
			splitCJK(tok, func(part string, cjk bool) {
				if cjk || hit[i] != "" {
					return
				}
				if part == "" || !first[part[0]] {
					return
				}
				q, seen := matched[part]
				if !seen {
					q = t.stems[stem(part)]
					matched[part] = q
				}
				hit[i] = q
			})
		})
	}
	if keys := t.cjkKeys(); len(keys) > 0 {
		// Concatenate the CJK characters of consecutive words, remembering which word each byte came from.
		var sb strings.Builder
		var owner []int
		flush := func() {
			s := sb.String()
			for _, k := range keys {
				for off := 0; ; {
					j := strings.Index(s[off:], k)
					if j < 0 {
						break
					}
					for b := off + j; b < off+j+len(k); b++ {
						if hit[owner[b]] == "" {
							hit[owner[b]] = k
						}
					}
					off += j + utf8.RuneLen([]rune(k)[0])
				}
			}
			sb.Reset()
			owner = owner[:0]
		}
		for i, w := range words {
			hasCJK := false
			for _, r := range w.Text {
				if isCJK(r) {
					hasCJK = true
					sb.WriteRune(r)
					for range utf8.RuneLen(r) {
						owner = append(owner, i)
					}
				}
			}
			if !hasCJK {
				flush()
			}
		}
		flush()
	}
	for i, w := range words {
		if hit[i] == "" {
			continue
		}
		out = append(out, Box{Term: hit[i], X0: w.X0, Y0: w.Y0, X1: w.X1, Y1: w.Y1})
		if len(out) == maxBoxes {
			break
		}
	}
	return out
}

// snippet returns about 200 characters of text around the first query term, for people reading results.
func snippet(text string, t terms) string {
	const width = 200
	at := -1
	low := strings.ToLower(text)
	for _, w := range append(append([]string{}, t.words...), t.cjkKeys()...) {
		i := strings.Index(low, w)
		if s := stem(w); i < 0 && len(s) >= 3 && s != w {
			i = strings.Index(low, s) // the page may hold another inflection ("degree" for "degrees")
		}
		if i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at < 0 || at > len(text) { // lower-casing can change byte lengths in rare scripts
		at = 0
	}
	start := max(0, at-width/3)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := min(len(text), start+width)
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}
