package questioner

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// sectionNumberRE is a section number on a line of its own, as the ingest writes "2.1" apart from "Sample Size
// Calculation": "3", "3.2", "IV.", "Chapter 2", "第3 节".
var sectionNumberRE = regexp.MustCompile(`^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.|(?:Chapter|Section|Part|Appendix)\s+[\dA-Z]+|第\s*[\d一二三四五六七八九十百]+\s*[章节部篇])$`)

// numberedHeadingRE is a heading with its number on the same line: "3.2 Results", "第2节 使用方法".
var numberedHeadingRE = regexp.MustCompile(`^(?:\d+(?:\.\d+)*\.?|第\s*[\d一二三四五六七八九十百]+\s*[章节部篇])\s+(\S.*)$`)

// maxHeadingWords bounds a heading: a longer line is a sentence.
const maxHeadingWords = 8

// readHeading reads a heading from a block: a numbered title, or one short line, as a block of its own (a larger
// gap above and below it than between lines).
func readHeading(block []string) (string, bool) {
	switch {
	case len(block) == 2 && sectionNumberRE.MatchString(block[0]):
		return block[1], isTitle(block[1])
	case len(block) != 1:
		return "", false
	}
	if m := numberedHeadingRE.FindStringSubmatch(block[0]); m != nil {
		return m[1], isTitle(m[1])
	}
	first, _ := utf8.DecodeRuneInString(block[0])
	if unicode.Is(unicode.Han, first) {
		// An unnumbered Chinese line that ends in a function word ("意义分别为") leads into what follows.
		last, _ := utf8.DecodeLastRuneInString(block[0])
		return block[0], !strings.ContainsRune(zhStopChars+"如下", last) && isTitle(block[0])
	}
	return block[0], unicode.IsUpper(first) && isTitle(block[0])
}

// isTitle reports a line that can be a heading: a few words with letters, no figures or commas (a date line, a
// byline), no final stop, not code or a caption.
func isTitle(s string) bool {
	latin, han := countWords(s)
	if latin > maxHeadingWords || han > 2*maxHeadingWords || latin+han == 0 || !hasLetter(s) {
		return false
	}
	if strings.ContainsAny(s, "0123456789,") || strings.HasSuffix(s, ".") || strings.HasSuffix(s, ";") ||
		strings.HasSuffix(s, ":") || strings.HasSuffix(s, "-") || strings.ContainsAny(lastRune(s), "。，；：、") {
		return false
	}
	if _, ok := readCaption(s); ok {
		return false
	}
	for _, w := range wordsOf(s) {
		if codeRE.MatchString(w) {
			return false
		}
	}
	return han > 0 || len(keywords(wordsOf(s), 1)) > 0
}

func lastRune(s string) string {
	r, _ := utf8.DecodeLastRuneInString(s)
	return string(r)
}

// headingCandidates are the page's heading questions: what the section says about the words of its first sentence.
func headingCandidates(pg *page, r *rand.Rand) []candidate {
	var out []candidate
	for i, block := range pg.blocks {
		if i+1 >= len(pg.blocks) {
			break
		}
		title, ok := readHeading(block)
		if !ok {
			continue
		}
		sents := bodySentences(pg.paras[i+1], pg.zh)
		if len(sents) == 0 {
			continue
		}
		if pg.zh {
			if kws := zhKeywords(sents[0], 2); len(kws) > 0 {
				out = append(out, zhHeadingQuestion(pg, r, strings.TrimSpace(title), kws))
			}
			continue
		}
		kws := keywords(wordsOf(sents[0]), 2+r.IntN(2))
		if len(kws) >= 2 {
			out = append(out, headingQuestion(pg, r, displayPhrase(title), kws))
		}
	}
	return out
}

// bodySentences are a block's sentences when the block is body text (prose sentences, not a caption), else none.
func bodySentences(p string, zh bool) []string {
	if _, ok := readCaption(p); ok {
		return nil
	}
	var out []string
	for _, s := range splitSentences(p, zh) {
		if proseSentence(s, zh) {
			out = append(out, s)
		}
	}
	return out
}

func headingQuestion(pg *page, r *rand.Rand, title string, kws []string) candidate {
	name, named := pg.doc.named(false, r.IntN(2) == 0)
	form := r.IntN(3)
	perm := r.Perm(len(kws))
	nt := len(wordsOf(title))
	render := func(keys []string) string {
		t := strings.Join(keys[:nt], " ")
		about := joinList(permute(keys[nt:], perm), false)
		switch {
		case form == 0 && named:
			return fmt.Sprintf("What does the section on %s in %s say about %s?", t, name, about)
		case form == 0:
			return fmt.Sprintf("What does the section on %s say about %s?", t, about)
		}
		q := fmt.Sprintf("In the section “%s”, what is said about %s?", t, about)
		if form == 2 {
			q = fmt.Sprintf("Under the heading %s, what is explained about %s?", t, about)
		}
		if named {
			q = inDoc(q, name, false)
		}
		return q
	}
	return candidate{kind: kindHeading, keys: append(wordsOf(title), kws...), render: render}
}

func zhHeadingQuestion(pg *page, r *rand.Rand, title string, kws []string) candidate {
	name, named := pg.doc.named(true, r.IntN(2) == 0)
	form := r.IntN(3)
	about := joinList(kws, true)
	render := func([]string) string {
		var q string
		switch form {
		case 0:
			q = fmt.Sprintf("“%s”一节关于%s说了什么？", title, about)
		case 1:
			q = fmt.Sprintf("在“%s”部分，%s如何介绍%s？", title, name, about)
		default:
			q = fmt.Sprintf("%s这一节中提到了哪些关于%s的内容？", title, about)
		}
		if named && form != 1 {
			q = inDoc(q, name, true)
		}
		return q
	}
	return candidate{kind: kindHeading, render: render, zh: true}
}
