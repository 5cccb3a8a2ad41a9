package questioner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence bounds: a shorter one rarely states a fact, a longer one is mostly a list or a run-on text block.
const (
	minSentenceWords = 8
	maxSentenceWords = 40
	minHanSentence   = 10
	maxHanSentence   = 120
)

// abbreviations end with a period that ends no sentence.
var abbreviations = map[string]bool{
	"al.": true, "e.g.": true, "i.e.": true, "fig.": true, "figs.": true, "eq.": true, "eqs.": true, "vs.": true,
	"cf.": true, "no.": true, "nos.": true, "dr.": true, "mr.": true, "mrs.": true, "ms.": true, "prof.": true,
	"approx.": true, "resp.": true, "ca.": true, "st.": true, "vol.": true, "pp.": true, "ed.": true, "eds.": true,
}

// splitSentences splits a block's text into sentences: at 。！？ for Chinese; else at a final stop that is no
// abbreviation ("et al.", "F. XIII") before a word that can start a sentence.
func splitSentences(s string, zh bool) []string {
	if zh {
		return splitHan(s)
	}
	ws := wordsOf(s)
	var out []string
	start := 0
	for i, w := range ws {
		if i+1 < len(ws) && !endsSentence(w, ws[i+1]) {
			continue
		}
		out = append(out, strings.Join(ws[start:i+1], " "))
		start = i + 1
	}
	return out
}

func endsSentence(w, next string) bool {
	t := strings.TrimRight(w, "”’\")]")
	if !strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "!") && !strings.HasSuffix(t, "?") {
		return false
	}
	if abbreviations[strings.ToLower(t)] || utf8.RuneCountInString(t) == 2 && unicode.IsLetter([]rune(t)[0]) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(next)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("“\"(['", r)
}

func splitHan(s string) []string {
	var out []string
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
		if strings.ContainsRune("。！？；!?", r) {
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		}
	}
	if t := strings.TrimSpace(b.String()); t != "" {
		out = append(out, t)
	}
	return out
}

// proseSentence reports a sentence of prose: ended by a stop, of a sentence's length, mostly words rather than
// figures or code, with at least three distinctive content words (two key phrases in Chinese).
func proseSentence(s string, zh bool) bool {
	if strings.Contains(s, "http") || strings.Contains(s, "doi:") || strings.Contains(s, "www.") {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	if zh {
		latin, han := countWords(s)
		return strings.ContainsRune("。！？；", last) && han >= minHanSentence && han <= maxHanSentence &&
			latin <= han && len(zhKeywords(s, 3)) >= 2
	}
	ws := wordsOf(s)
	if len(ws) < minSentenceWords || len(ws) > maxSentenceWords || !strings.ContainsRune(".!?", last) &&
		!strings.HasSuffix(strings.TrimRight(s, "”’\")]"), ".") {
		return false
	}
	worded, code := 0, 0
	for _, w := range ws {
		if t := trimPunct(w); t != "" && strings.IndexFunc(t, unicode.IsDigit) < 0 && hasLetter(t) {
			worded++
		}
		if codeRE.MatchString(w) {
			code++
		}
	}
	return 10*worded >= 6*len(ws) && code <= 1 && len(keywords(ws, 3)) >= 3
}

// sentenceCandidates are the page's sentence questions: what a prose sentence states.
func sentenceCandidates(pg *page, r *rand.Rand) []candidate {
	var out []candidate
	for _, p := range pg.paras {
		for _, s := range bodySentences(p, pg.zh) {
			if pg.zh {
				out = append(out, zhSentenceQuestion(pg, r, s))
				continue
			}
			out = append(out, sentenceQuestion(pg, r, s))
		}
	}
	return out
}

// sentenceQuestion asks for a figure the sentence states where it can ("How many patients were needed?"), else for
// what the document says about the sentence's keywords, in another order.
func sentenceQuestion(pg *page, r *rand.Rand, s string) candidate {
	ws := wordsOf(s)
	name, named := pg.doc.named(false, r.IntN(2) == 0)
	if c, ok := numberQuestion(ws, name, named, r); ok {
		return c
	}
	// Most of the time, ask as a reader names things: by the sentence's own terms, whole ("data preparation
	// operators", "Fast NMS"), not by three of its rarest words scattered.
	if ps := keyPhrases(ws, 2); len(ps) > 0 && r.IntN(3) > 0 {
		return phraseQuestion(ps, name, named, r)
	}
	kws := keywords(ws, 3)
	perm := r.Perm(len(kws))
	form := r.IntN(4)
	render := func(keys []string) string {
		k := joinList(permute(keys, perm), false)
		switch form {
		case 0:
			return fmt.Sprintf("What does %s say about %s?", name, k)
		case 1:
			p := permute(keys, perm)
			return fmt.Sprintf("How does %s describe %s in relation to %s?", name, p[0], joinList(p[1:], false))
		case 2:
			return fmt.Sprintf("What is said about %s in %s?", k, name)
		}
		q := fmt.Sprintf("What is stated about %s?", k)
		if named {
			q = inDoc(q, name, false)
		}
		return q
	}
	return candidate{kind: kindSentence, keys: kws, render: render}
}

// numberQuestion asks for the figure of a sentence: "How many <noun after it> …?" for a count, "What was the <noun
// phrase before it>?" for a measure. The figure itself is the answer, so it is the candidate's value.
func numberQuestion(ws []string, name string, named bool, r *rand.Rand) (candidate, bool) {
	i := figureAt(ws)
	if i < 0 {
		return candidate{}, false
	}
	value := strings.Trim(ws[i], "()[],;:.")
	if noun := countedNoun(ws, i); noun != nil && !strings.ContainsAny(value, ".%") {
		return countQuestion(ws, i, noun, value, name, named)
	}
	return measureQuestion(ws, i, value, name, named, r)
}

// otherKeywords are a sentence's keywords beside those of a phrase the question already uses.
func otherKeywords(ws, used []string, n int) []string {
	var rest []string
	for _, w := range ws {
		if !slices.ContainsFunc(used, func(u string) bool { return strings.EqualFold(u, trimPunct(w)) }) {
			rest = append(rest, w)
		}
	}
	return keywords(rest, n)
}

func countQuestion(ws []string, i int, noun []string, value, name string, named bool) (candidate, bool) {
	tail := verbTail(ws, i+1+len(noun))
	others := otherKeywords(ws, noun, 2)
	if tail == "" && len(others) == 0 {
		return candidate{}, false
	}
	n := len(noun)
	render := func(keys []string) string {
		np := strings.Join(keys[:n], " ")
		if tail != "" {
			return withDoc(fmt.Sprintf("How many %s %s?", np, tail), name, named)
		}
		return fmt.Sprintf("How many %s does %s mention in connection with %s?", np, name, joinList(keys[n:], false))
	}
	return candidate{kind: kindSentence, keys: append(slices.Clone(noun), others...), render: render, value: value}, true
}

func measureQuestion(ws []string, i int, value, name string, named bool, r *rand.Rand) (candidate, bool) {
	np := phraseBefore(ws, i)
	ctx := contextAfter(ws, i)
	// A single word before a figure names what it measures only with a phrase after it that says where.
	if np == nil || len(np) < 2 && ctx == "" {
		return candidate{}, false
	}
	form := r.IntN(2)
	render := func(keys []string) string {
		p := strings.Join(keys, " ")
		switch {
		case ctx != "":
			return withDoc(fmt.Sprintf("What was the %s %s?", p, ctx), name, named)
		case form == 0:
			return withDoc(fmt.Sprintf("What was the %s?", p), name, named)
		}
		return fmt.Sprintf("What %s is reported in %s?", p, name)
	}
	return candidate{kind: kindSentence, keys: np, render: render, value: value}, true
}

// withDoc names the document before a question when the draw says so.
func withDoc(q, name string, named bool) string {
	if named {
		return inDoc(q, name, false)
	}
	return q
}

// maxPhraseWords bounds a key phrase: longer runs are clauses, not names of things.
const maxPhraseWords = 4

// keyPhrases are up to n of a sentence's terms: runs of two to four adjacent words, each a content word or a name
// (inner "of" and "for" allowed), with at least one distinctive word, most distinctive first, none overlapping.
// A question naming them reads as users write ("the classical pipeline", "Fast NMS processing").
func keyPhrases(ws []string, n int) [][]string {
	type phrase struct {
		words []string
		score int
	}
	termWord := func(i int) bool {
		w := ws[i]
		if timeWords[strings.ToLower(trimPunct(w))] {
			return false
		}
		if c := contentWord(w); c != "" && !strings.HasSuffix(strings.ToLower(c), "ly") {
			return true
		}
		t := trimPunct(w)
		return len(t) >= 2 && strings.ToUpper(t) == t && hasLetter(t) && strings.IndexFunc(t, unicode.IsDigit) < 0 // an acronym
	}
	var ps []phrase
	for i := 0; i < len(ws); {
		if !termWord(i) {
			i++
			continue
		}
		j := i + 1
		for j < len(ws) && j-i < maxPhraseWords {
			if prev := ws[j-1]; strings.ContainsAny(prev[len(prev)-1:], ",;:.)") {
				break // a word that ends a clause ends the term
			}
			if termWord(j) {
				j++
				continue
			}
			if low := strings.ToLower(ws[j]); (low == "of" || low == "for") && j+1 < len(ws) && termWord(j+1) && j+1-i < maxPhraseWords {
				j += 2
				continue
			}
			break
		}
		// A term ends in a noun: not a participle, an adverb or a verb's -s ("nobody attempted", "PROGRAMFC follows").
		for j-i >= 2 && !termEnd(trimPunct(ws[j-1])) {
			j--
		}
		if j-i >= 2 {
			words := make([]string, 0, j-i)
			score := 0
			for k := i; k < j; k++ {
				w := trimPunct(ws[k])
				if k == 0 {
					w = display(w)
				}
				words = append(words, w)
				score = max(score, rarity(strings.ToLower(w)))
			}
			if score >= distinctiveRank {
				ps = append(ps, phrase{words, score})
			}
		}
		i = j
	}
	slices.SortStableFunc(ps, func(a, b phrase) int { return b.score - a.score })
	out := make([][]string, 0, n)
	for _, p := range ps[:min(n, len(ps))] {
		out = append(out, p.words)
	}
	return out
}

// notNouns are words that pass as content words but end no term.
var notNouns = map[string]bool{"today": true, "nobody": true, "afterwards": true, "everyone": true, "everything": true,
	"follows": true, "includes": true, "provides": true, "requires": true, "contains": true, "describes": true,
	"becomes": true, "remains": true, "appears": true, "allows": true, "makes": true, "takes": true, "gives": true}

// timeWords say when, not what: "the Libertarian Party last year" names the party.
var timeWords = map[string]bool{"last": true, "next": true, "year": true, "years": true, "month": true, "months": true,
	"week": true, "weeks": true, "days": true, "time": true, "times": true, "ago": true, "today": true, "sometimes": true}

// termEnd reports whether a word can end a term.
func termEnd(w string) bool {
	low := strings.ToLower(w)
	if low == "" || notNouns[low] || low == "of" || low == "for" {
		return false
	}
	if strings.ToUpper(w) == w && hasLetter(w) {
		return true // an acronym
	}
	return !strings.HasSuffix(low, "ed") && !strings.HasSuffix(low, "ing") && !strings.HasSuffix(low, "ly")
}

// distinctiveRank is the GloVe rank from which a word names something a page can be found by; a phrase of only
// commoner words ("long time") names nothing.
const distinctiveRank = 3000

// phraseQuestion asks about one or two of a sentence's terms, as a reader would: what the document says about a
// term, or how two terms relate.
func phraseQuestion(ps [][]string, name string, named bool, r *rand.Rand) candidate {
	var keys []string
	cut := len(ps[0])
	for _, p := range ps {
		keys = append(keys, p...)
	}
	form := r.IntN(4)
	if len(ps) == 1 {
		form = r.IntN(2)
	}
	render := func(k []string) string {
		a := strings.Join(k[:cut], " ")
		b := strings.Join(k[cut:], " ")
		switch form {
		case 0:
			return fmt.Sprintf("What does %s say about %s?", name, a)
		case 1:
			return withDoc(fmt.Sprintf("What is %s?", a), name, named)
		case 2:
			return withDoc(fmt.Sprintf("How is %s related to %s?", a, b), name, named)
		}
		return withDoc(fmt.Sprintf("What role does %s play in %s?", a, b), name, named)
	}
	return candidate{kind: kindSentence, keys: keys, render: render}
}
