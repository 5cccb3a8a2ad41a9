package rerank

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"proofglass/backend/model"
)

// Chat ranks the candidates' page images listwise with a chat (vision) model: one call sees every candidate, labelled
// [1]…[n], and answers with the labels best first. It costs one model call per search, so it is opt-in.
type Chat struct {
	// MaxTokens bounds the reply; 0 means maxReplyTokens.
	MaxTokens int

	chat     model.Chat
	model    string
	provider string
}

var _ Reranker = (*Chat)(nil)

// NewChat returns the listwise reranker over chat's modelName; provider names the profile in errors.
func NewChat(chat model.Chat, provider, modelName string) (*Chat, error) {
	if chat == nil {
		return nil, fmt.Errorf("chat rerank: profile %s cannot chat", provider)
	}
	if modelName == "" {
		return nil, fmt.Errorf("chat rerank: profile %s has no chat model: set rerank.model or the profile's chat model", provider)
	}
	return &Chat{chat: chat, model: modelName, provider: provider}, nil
}

// Name is "chat rerank MODEL of PROFILE".
func (c *Chat) Name() string { return fmt.Sprintf("chat rerank %s of %s", c.model, c.provider) }

// maxReplyTokens bounds the answer: a list of at most a few dozen labels.
const maxReplyTokens = 256

// Prompt is the instruction of the listwise call, with the question and the candidate count filled in.
func Prompt(query string, n int) string {
	return fmt.Sprintf("You rank document pages by how well they answer a question.\n"+
		"Question: %s\n\n"+
		"The %d pages above are labelled [1] to [%d]. Answer only with the labels of the pages, the page that best "+
		"answers the question first, separated by commas, for example: [2], [1], [3]. Leave out pages that do not "+
		"help answer it.", query, n, n)
}

// Rerank asks the model once. A candidate without an image is shown as its text.
func (c *Chat) Rerank(ctx context.Context, query string, cands []Candidate) ([]Score, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	var parts []model.Part
	for i, cand := range cands {
		parts = append(parts, model.Part{Text: fmt.Sprintf("[%d]", i+1)})
		var img *model.Image
		if cand.Image != nil {
			var err error
			if img, err = cand.Image(ctx); err != nil {
				return nil, fmt.Errorf("%s: page image of candidate %d: %w", c.Name(), i+1, err)
			}
		}
		if img != nil {
			parts = append(parts, model.Part{Image: img})
		} else {
			parts = append(parts, model.Part{Text: clipText(cand.Text, 1500)})
		}
	}
	parts = append(parts, model.Part{Text: Prompt(query, len(cands))})
	maxTok := c.MaxTokens
	if maxTok <= 0 {
		maxTok = maxReplyTokens
	}
	req := model.Request{Model: c.model, Messages: []model.Message{{Role: model.RoleUser, Parts: parts}},
		Options: model.Options{Temperature: model.Float(0), MaxTokens: maxTok, Think: model.Bool(false)}}
	st, err := c.chat.Chat(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name(), err)
	}
	defer st.Close()
	var reply strings.Builder
	for st.Next() {
		reply.WriteString(st.Current().Content)
	}
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name(), err)
	}
	order := ParseOrder(reply.String(), len(cands))
	if len(order) == 0 {
		return nil, fmt.Errorf("%s: %w: no page label in the reply %q", c.Name(), ErrMalformed, clipText(reply.String(), 200))
	}
	scores := make([]Score, len(order))
	for i, idx := range order {
		scores[i] = Score{Index: idx, Relevance: float64(len(order)-i) / float64(len(order))}
	}
	return scores, nil
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?(</think>|$)`)
	bracketed  = regexp.MustCompile(`\[\s*(\d+)\s*\]`)
	pageWord   = regexp.MustCompile(`(?i)\b(?:page|label|picture|image)\s*#?\s*(\d+)`)
	number     = regexp.MustCompile(`\d+`)
)

// ParseOrder reads a listwise reply into 0-based candidate indexes, best first: bracketed labels ("[3], [1]") when
// there are any, else "Page 3"-style labels, else bare numbers. Reasoning in <think> tags, labels outside 1…n and
// repeats are dropped.
func ParseOrder(reply string, n int) []int {
	reply = thinkBlock.ReplaceAllString(reply, "")
	var labels []string
	for _, re := range []*regexp.Regexp{bracketed, pageWord} {
		for _, m := range re.FindAllStringSubmatch(reply, -1) {
			labels = append(labels, m[1])
		}
		if len(labels) > 0 {
			break
		}
	}
	if len(labels) == 0 {
		labels = number.FindAllString(reply, -1)
	}
	seen := map[int]bool{}
	var out []int
	for _, l := range labels {
		v, err := strconv.Atoi(l)
		if err != nil || v < 1 || v > n || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v-1)
	}
	return out
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
