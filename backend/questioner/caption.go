package questioner

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// captionRE splits a caption into its label, number and text: "Figure 3: …", "Fig. 2. …", "Table 1 – …".
var captionRE = regexp.MustCompile(`^(Figure|FIGURE|Fig\.|FIG\.|Table|TABLE|Tab\.|Chart|Exhibit)\s*(\d+[A-Za-z]?(?:\.\d+)*)\s*([:.|–—-])?\s*(.*)$`)

// zhCaptionRE is a Chinese caption: "图 3 …", "表2：…".
var zhCaptionRE = regexp.MustCompile(`^(图|表)\s*(\d+(?:[.\-]\d+)*)\s*[:：.、]?\s*(.+)$`)

// caption is a caption read from a block: whether it is a table's, its number and its text.
type caption struct {
	table  bool
	number string
	text   string
}

// readCaption reads a caption from the start of a block's text. A figure reference in running prose ("Figure 1
// shows …") is no caption: a caption's label is followed by a separator or by a capitalised title.
func readCaption(s string) (caption, bool) {
	if m := zhCaptionRE.FindStringSubmatch(s); m != nil && hasHan(m[3]) {
		return caption{table: m[1] == "表", number: m[2], text: m[3]}, true
	}
	m := captionRE.FindStringSubmatch(s)
	if m == nil || m[4] == "" {
		return caption{}, false
	}
	first, _ := utf8.DecodeRuneInString(m[4])
	if m[3] == "" && !unicode.IsUpper(first) {
		return caption{}, false
	}
	lead := strings.ToLower(m[1])
	return caption{table: strings.HasPrefix(lead, "tab"), number: m[2], text: m[4]}, true
}

var parenRE = regexp.MustCompile(`\s*[(（][^()（）]*[)）]`)

// maxTopicWords bounds a caption's topic: a question quotes a phrase, not the caption.
const maxTopicWords = 12

// captionTopic is what a caption is about, in a few words: its first sentence without brackets, after a short
// title ("Measured blood loss: Distribution of …" → "distribution of …"), up to its first comma, at most maxTopicWords words.
func captionTopic(s string) string {
	if c, ok := readCaption(s); ok {
		s = c.text
	}
	if hasHan(s) {
		s = parenRE.ReplaceAllString(s, "")
		if i := strings.IndexAny(s, "。，；,;"); i > 0 {
			s = s[:i]
		}
		return strings.TrimSpace(s)
	}
	s = parenRE.ReplaceAllString(s, "")
	if ss := splitSentences(s, false); len(ss) > 0 {
		s = ss[0]
	}
	if i := strings.Index(s, ": "); i > 0 && len(wordsOf(s[:i])) <= 6 && len(wordsOf(s[i+2:])) >= 3 {
		s = s[i+2:]
	}
	if i := strings.IndexAny(s, ",;"); i > 0 && len(wordsOf(s[:i])) >= 3 {
		s = s[:i]
	}
	ws := wordsOf(strings.TrimRight(s, ".:"))
	if len(ws) > maxTopicWords {
		// Cut at the last function word that fits, so the topic ends on a whole phrase.
		ws = ws[:maxTopicWords]
		for j := len(ws) - 1; j >= 4; j-- {
			if isStop(strings.ToLower(ws[j])) {
				ws = ws[:j]
				break
			}
		}
	}
	for len(ws) > 0 && slices.Contains([]string{"the", "a", "an"}, strings.ToLower(ws[0])) {
		ws = ws[1:]
	}
	for len(ws) > 0 && isStop(strings.ToLower(trimPunct(ws[len(ws)-1]))) {
		ws = ws[:len(ws)-1]
	}
	return sentenceCase(strings.Join(ws, " "))
}

// captionCandidates are the page's caption questions: which figure or table shows what its caption says.
func captionCandidates(pg *page, r *rand.Rand) []candidate {
	var out []candidate
	for _, p := range pg.paras {
		c, ok := readCaption(p)
		if !ok {
			continue
		}
		topic := captionTopic(p)
		if pg.zh {
			if utf8.RuneCountInString(topic) >= 2 {
				out = append(out, zhCaptionQuestion(pg, r, c, topic))
			}
			continue
		}
		if len(keywords(wordsOf(topic), 3)) < 2 {
			continue
		}
		out = append(out, captionQuestion(pg, r, c, topic))
	}
	return out
}

// captionQuestion asks which figure or table shows the caption's topic: in its words with one modifier dropped, or
// by its keywords in another order; only sometimes by its number, so the question does not just copy the label.
func captionQuestion(pg *page, r *rand.Rand, c caption, topic string) candidate {
	name, named := pg.doc.named(false, r.IntN(2) == 0)
	noun, verb := "figure", pickOne(r, "shows", "illustrates", "plots")
	if c.table {
		noun, verb = "table", pickOne(r, "lists", "gives", "shows")
	}
	label := strings.ToUpper(noun[:1]) + noun[1:] + " " + c.number
	form := r.IntN(4)
	words := dropModifier(wordsOf(topic), r)
	perm := r.Perm(3)
	render := func(keys []string) string {
		var q string
		switch form {
		case 0, 1:
			q = fmt.Sprintf("Which %s %s %s?", noun, verb, withArticle(strings.Join(keys, " ")))
		case 2:
			q = fmt.Sprintf("Which %s is about %s?", noun, joinList(permute(keywords(keys, 3), perm), false))
		default:
			q = fmt.Sprintf("What does %s show about %s?", label, joinList(permute(keywords(keys, 2), perm), false))
		}
		if named {
			q = inDoc(q, name, false)
		}
		return q
	}
	return candidate{kind: kindCaption, keys: words, render: render}
}

func zhCaptionQuestion(pg *page, r *rand.Rand, c caption, topic string) candidate {
	name, named := pg.doc.named(true, r.IntN(2) == 0)
	noun := "图"
	if c.table {
		noun = "表"
	}
	form := r.IntN(3)
	render := func([]string) string {
		var q string
		switch {
		case form == 0 && c.table:
			q = fmt.Sprintf("哪个表格列出了%s？", topic)
		case form == 0:
			q = fmt.Sprintf("哪张图展示了%s？", topic)
		case form == 1:
			q = fmt.Sprintf("关于%s的%s在哪里？", topic, noun)
		default:
			q = fmt.Sprintf("%s%s显示了关于%s的什么内容？", noun, c.number, topic)
		}
		if named {
			q = inDoc(q, name, true)
		}
		return q
	}
	return candidate{kind: kindCaption, render: render, zh: true}
}

// withArticle puts "the" before a topic that is a noun phrase, not before one that starts with a gerund ("using
// fonts in paragraphs").
func withArticle(topic string) string {
	if strings.HasSuffix(strings.ToLower(firstWord(topic)), "ing") {
		return topic
	}
	return "the " + topic
}

// dropModifier drops, half the time, one content word that modifies the content word after it ("measured blood
// loss" → "blood loss"), never the first, which names the topic: the question then asks with fewer of the
// caption's words.
func dropModifier(ws []string, r *rand.Rand) []string {
	var at []int
	for i := 1; i+1 < len(ws); i++ {
		if contentWord(ws[i]) != "" && contentWord(ws[i+1]) != "" {
			at = append(at, i)
		}
	}
	if len(at) == 0 || r.IntN(2) == 0 {
		return ws
	}
	i := at[r.IntN(len(at))]
	return append(ws[:i:i], ws[i+1:]...)
}

// permute orders up to len(perm) words by a permutation drawn beforehand, so a render gives the same order for the
// same words.
func permute(ws []string, perm []int) []string {
	var out []string
	for _, p := range perm {
		if p < len(ws) {
			out = append(out, ws[p])
		}
	}
	return out
}
