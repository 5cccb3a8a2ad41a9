package questioner

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"proofglass/backend/model"
)

// kindVision is the kind of a question a vision model wrote from the page image.
const kindVision = "vision"

// Visual writes questions from page images with a vision model, as VisPlay's questioner does: the model sees the
// page as a reader does (its charts, tables and layout), so its questions reach what the text layer alone does not
// say. What it writes is checked against the page before it counts (see reason).
type Visual struct {
	Chat  model.Chat
	Model string
	// Image draws a page for the model (e.g. a JPEG about 1,000 pixels wide).
	Image func(ctx context.Context, unitID int64) (*model.Image, error)
	// PerPage is how many questions to ask the model for (default 3).
	PerPage int
	// Options are the sampling options of each call (a little temperature gives questions of more kinds).
	Options model.Options
}

// VisualResult is what one page gave: its questions that passed the checks, and why the others did not.
type VisualResult struct {
	Questions []Question
	Rejected  map[string]int // by reason
}

// The reasons a vision model's line is not a question to keep.
const (
	RejectNotQuestion = "not a question"
	RejectLength      = "too short or too long"
	RejectDeictic     = "asks about the picture, not the document"
	RejectOffPage     = "names nothing on the page"
	RejectCopied      = "copies the page's words"
	RejectDuplicate   = "asked twice"
)

// visualPrompt asks for questions a reader would put to a search over the library, one a line. Page and document
// name the page, so the model can say which report it asks about as a user would.
const visualPrompt = `This image is page %d of the document "%s".
Write %d different questions that a reader of this document could ask and that this page alone answers: about a figure in a table, a chart, a heading's subject or a statement on it.
Ask as a person searching a library of documents would: name what you ask about, in your own words. Do not copy whole phrases from the page, and do not refer to "this page", "this image" or "the figure above".
Write the questions in the language of the page, one per line, and nothing else.`

// Write asks the model for questions about one page and keeps those that pass the checks.
func (v *Visual) Write(ctx context.Context, p Page) (VisualResult, error) {
	res := VisualResult{Rejected: map[string]int{}}
	img, err := v.Image(ctx, p.Unit.ID)
	if err != nil {
		return res, fmt.Errorf("vision questions: page %d of %s: %w", p.Unit.Ordinal, p.DocumentName, err)
	}
	n := v.PerPage
	if n <= 0 {
		n = 3
	}
	req := model.Request{Model: v.Model, Options: v.Options, Messages: []model.Message{{
		Role: model.RoleUser,
		Parts: []model.Part{
			{Image: img},
			{Text: fmt.Sprintf(visualPrompt, p.Unit.Ordinal, p.DocumentName, n)},
		},
	}}}
	st, err := v.Chat.Chat(ctx, req)
	if err != nil {
		return res, fmt.Errorf("vision questions: page %d of %s: %w", p.Unit.Ordinal, p.DocumentName, err)
	}
	d, err := model.Collect(st)
	if err != nil {
		return res, fmt.Errorf("vision questions: page %d of %s: %w", p.Unit.Ordinal, p.DocumentName, err)
	}
	on := pageWords(pageText(p))
	seen := map[string]bool{}
	for _, line := range strings.Split(d.Content, "\n") {
		q := cleanLine(line)
		if q == "" {
			continue
		}
		why := reason(q, on)
		if why == "" && seen[strings.ToLower(q)] {
			why = RejectDuplicate
		}
		if why != "" {
			res.Rejected[why]++
			continue
		}
		seen[strings.ToLower(q)] = true
		res.Questions = append(res.Questions, Question{Text: q, UnitID: p.Unit.ID, DocumentID: p.Unit.DocumentID,
			Page: p.Unit.Ordinal, Kind: kindVision})
		if len(res.Questions) == n {
			break
		}
	}
	return res, nil
}

// pageText is a page's text, or its words' when the unit keeps only boxes.
func pageText(p Page) string {
	if strings.TrimSpace(p.Unit.Text) != "" || len(p.Unit.Words) == 0 {
		return p.Unit.Text
	}
	ws := make([]string, len(p.Unit.Words))
	for i, w := range p.Unit.Words {
		ws[i] = w.Text
	}
	return strings.Join(ws, " ")
}

// listMarker is what models put before a question in a list: "1.", "2)", "-", "*", "Q3:", "问题1：".
var listMarker = regexp.MustCompile(`^\s*(?:[-*•]+|\(?\d{1,2}[.)、:：]|[Qq]\d{0,2}[.:：]|问题\s*\d*[.:：])\s*`)

// cleanLine is a model's line without its list marker, emphasis and quotes.
func cleanLine(s string) string {
	s = listMarker.ReplaceAllString(strings.TrimSpace(s), "")
	s = strings.Trim(s, " \t*_\"'“”‘’`")
	return strings.TrimSpace(s)
}

// deictic are the phrases that ask about the picture rather than the document: nobody searching a library writes
// them, and no page but the one in front of the model answers them.
var deictic = regexp.MustCompile(`(?i)\b(this|the above|the following|shown|pictured) (page|image|picture|photo|screenshot|figure above|slide)\b|\bin the image\b|\bon this page\b|本页|这张图|图中所示|该页`)

// reason says why a vision model's question is not kept ("" when it is): it must be a question of a searcher's
// length, name something the page says (two of its words, or one Han pair), not ask about the picture itself, and
// not copy a run of the page's words. on are the page's words (pageWords).
func reason(q string, on pageWordSet) string {
	if !strings.HasSuffix(q, "?") && !strings.HasSuffix(q, "？") {
		return RejectNotQuestion
	}
	latin, han := countWords(q)
	if n := latin + han/2; n < 4 || n > 40 || utf8.RuneCountInString(q) > 300 {
		return RejectLength
	}
	if deictic.MatchString(q) {
		return RejectDeictic
	}
	ws := lowerWords(q)
	shared := 0
	counted := map[string]bool{}
	for _, w := range ws {
		if counted[w] || !on.words[w] || (!hasHan(w) && (utf8.RuneCountInString(w) < 3 || isStop(w))) {
			continue
		}
		counted[w] = true
		if hasHan(w) {
			shared += 2 // a Han pair names about as much as a word
		} else {
			shared++
		}
	}
	if shared < 2 {
		return RejectOffPage
	}
	if copiedRun(ws, on) > 8 {
		return RejectCopied
	}
	return ""
}

// pageWordSet is a page's lower-case words (and Han character pairs), and its runs of consecutive words.
type pageWordSet struct {
	words map[string]bool
	next  map[[2]string]bool // word a followed by word b somewhere on the page
}

// pageWords reads a page's words for Reason.
func pageWords(text string) pageWordSet {
	s := pageWordSet{words: map[string]bool{}, next: map[[2]string]bool{}}
	ws := lowerWords(text)
	for i, w := range ws {
		s.words[w] = true
		if i > 0 {
			s.next[[2]string{ws[i-1], w}] = true
		}
	}
	return s
}

// lowerWords are a text's words in lower case: runs of letters and digits, and Chinese as overlapping character
// pairs (Chinese writes no spaces; a pair is nearer a word than one character is).
func lowerWords(s string) []string {
	var out []string
	var cur []rune
	var hanRun []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
		for i := 0; i+1 < len(hanRun); i++ {
			out = append(out, string(hanRun[i:i+2]))
		}
		hanRun = hanRun[:0]
	}
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			if len(cur) > 0 {
				out = append(out, strings.ToLower(string(cur)))
				cur = cur[:0]
			}
			hanRun = append(hanRun, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(hanRun) > 0 {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// copiedRun is the longest run of the question's consecutive words that stand in the same order on the page.
func copiedRun(ws []string, on pageWordSet) int {
	best, run := 0, 0
	for i, w := range ws {
		switch {
		case !on.words[w]:
			run = 0
		case i > 0 && run > 0 && on.next[[2]string{ws[i-1], w}]:
			run++
		default:
			run = 1
		}
		best = max(best, run)
	}
	return best
}
