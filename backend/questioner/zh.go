package questioner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// zhStops are Chinese function words: a key phrase is a run of Han characters between them. The longer ones are
// cut first, so "使用" goes before "用" can split another word.
var zhStops = []string{"可以", "需要", "使用", "如果", "例如", "用于", "对于", "其中", "以及", "或者", "因此", "并且",
	"但是", "所以", "可能", "没有", "我们", "这里", "这个", "那么", "就是", "不是", "通过", "进行", "一个", "一定",
	"相应", "其他", "下面", "如下", "以上", "按照", "根据", "由于", "而且", "之后", "之前", "时候", "分别", "只有",
	"一些", "某些", "这些", "那些", "已经", "所有", "任何", "以下", "下列", "之间", "非常", "还是", "只是", "总是", "来"}

// zhStopChars are single-character function words.
const zhStopChars = "的了是在和与及或将把被对为等也都而并其这那就时于以从到由向给让则若即但又还该此各每之所会能要不有才些本带"

// zhKeywords are a Chinese sentence's key phrases: runs of two to six Han characters between function words,
// longest first, and its Latin names ("zhnumber", "GBK").
func zhKeywords(s string, n int) []string {
	for _, w := range zhStops {
		s = strings.ReplaceAll(s, w, "|")
	}
	var chunks, latin []string
	var cur []rune
	flush := func() {
		if c := len(cur); c >= 2 && c <= 6 {
			chunks = append(chunks, string(cur))
		}
		cur = cur[:0]
	}
	for _, r := range s {
		if unicode.Is(unicode.Han, r) && !strings.ContainsRune(zhStopChars, r) {
			cur = append(cur, r)
			continue
		}
		flush()
	}
	flush()
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) }) {
		if len(w) >= 3 && !isStop(strings.ToLower(w)) {
			latin = append(latin, w)
		}
	}
	slices.SortStableFunc(chunks, func(a, b string) int { return utf8.RuneCountInString(b) - utf8.RuneCountInString(a) })
	var out []string
	for _, c := range slices.Concat(chunks, latin) {
		if len(out) < n && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// zhSentenceQuestion asks what the document says about a Chinese sentence's key phrases.
func zhSentenceQuestion(pg *page, r *rand.Rand, s string) candidate {
	name, named := pg.doc.named(true, r.IntN(2) == 0)
	kws := zhKeywords(s, 3)
	r.Shuffle(len(kws), func(a, b int) { kws[a], kws[b] = kws[b], kws[a] })
	k := joinList(kws, true)
	form := r.IntN(4)
	render := func([]string) string {
		switch form {
		case 0:
			return fmt.Sprintf("关于%s，%s怎么说？", k, name)
		case 1:
			return fmt.Sprintf("%s中关于%s的说法是什么？", name, k)
		case 2:
			return fmt.Sprintf("%s是如何描述%s的？", name, k)
		}
		q := fmt.Sprintf("有关%s的内容是什么？", k)
		if named {
			q = inDoc(q, name, true)
		}
		return q
	}
	return candidate{kind: kindSentence, render: render, zh: true}
}
