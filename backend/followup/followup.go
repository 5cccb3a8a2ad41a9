// Package followup turns a follow-up question of a conversation into a standalone question before an agent run.
package followup

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"proofglass/backend/model"
)

// Citation is a page a previous answer cited.
type Citation struct {
	Document string
	Page     int
}

// Turn is one earlier question of the conversation with its answer.
type Turn struct {
	Question  string
	Answer    string
	Citations []Citation
}

// Decision says whether a question needs rewriting, and why.
type Decision struct {
	Rewrite bool
	Reason  string // "first_turn", "standalone" or "follow_up"
}

// Decide tells whether question, asked after history, depends on the conversation. It errs on the side of rewriting:
// a needless rewrite costs one short model call, a missed one loses the conversation.
func Decide(history []Turn, question string) Decision {
	if len(history) == 0 {
		return Decision{Reason: "first_turn"}
	}
	if refersBack(question) {
		return Decision{Rewrite: true, Reason: "follow_up"}
	}
	return Decision{Reason: "standalone"}
}

// Words and openings that point back into the conversation (pronouns, ellipsis, "and …", "what about …").
var (
	backWords = map[string]bool{
		"it": true, "its": true, "it's": true, "they": true, "them": true, "their": true, "theirs": true,
		"this": true, "that": true, "these": true, "those": true, "he": true, "she": true, "his": true, "her": true,
		"him": true, "there": true, "then": true, "former": true, "latter": true, "above": true, "previous": true,
		"earlier": true, "same": true, "ones": true, "one's": true, "else": true, "instead": true, "again": true,
		"also": true, "too": true, "other": true, "another": true,
	}
	openers = []string{"and ", "but ", "or ", "so ", "what about", "how about", "why", "how come", "and?", "more",
		"compare", "same ", "then ", "also ", "now ", "ok", "okay", "what else"}
	// CJK pronouns and particles that only make sense with context (它, 这, 那, 他们, 呢, それ, これ, あれ).
	cjkBack = []string{"它", "这", "那", "他们", "她们", "它们", "该", "呢", "それ", "これ", "あれ", "その", "この", "그것", "이것"}
	wordRE  = regexp.MustCompile(`[\p{L}\p{N}']+`)
)

func refersBack(q string) bool {
	lower := strings.ToLower(strings.TrimSpace(q))
	for _, o := range openers {
		if strings.HasPrefix(lower, o) {
			return true
		}
	}
	for _, c := range cjkBack {
		if strings.Contains(q, c) {
			return true
		}
	}
	words := wordRE.FindAllString(lower, -1)
	for _, w := range words {
		if backWords[w] {
			return true
		}
	}
	// A very short question ("In 2020?", "Figure 4?") leans on what came before; CJK text has no spaces, so count runes.
	if !hasCJK(q) && len(words) <= 3 {
		return true
	}
	return false
}

func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// SystemPrompt is Proofglass's own instruction for the rewrite (not part of any agent protocol).
const SystemPrompt = "You rewrite the last question of a conversation about documents into one standalone question " +
	"that can be understood without the conversation. Resolve pronouns and omissions from the conversation; keep the " +
	"user's language and every name, number, year and unit; name the document when the question refers to it. " +
	"Do not answer the question. Reply with the standalone question only, on one line."

// Limits that keep the rewrite call short whatever the conversation's length.
const (
	MaxTurns       = 6 // earlier turns a rewrite sees
	maxAnswerRunes = 600
	maxCitations   = 5
	maxTokens      = 400
)

// Messages builds the rewrite request's messages.
func Messages(history []Turn, question string) []model.Message {
	if len(history) > MaxTurns {
		history = history[len(history)-MaxTurns:]
	}
	var b strings.Builder
	b.WriteString("Conversation:\n")
	for _, t := range history {
		fmt.Fprintf(&b, "User: %s\n", oneLine(t.Question))
		ans := oneLine(t.Answer)
		if ans == "" {
			ans = "(no answer)"
		}
		fmt.Fprintf(&b, "Assistant: %s\n", truncate(ans, maxAnswerRunes))
		if c := citeList(t.Citations); c != "" {
			fmt.Fprintf(&b, "(cited: %s)\n", c)
		}
	}
	fmt.Fprintf(&b, "\nLast question: %s\n\nStandalone question:", oneLine(question))
	return []model.Message{
		model.TextMessage(model.RoleSystem, SystemPrompt),
		model.TextMessage(model.RoleUser, b.String()),
	}
}

func citeList(cs []Citation) string {
	var parts []string
	seen := map[string]bool{}
	for _, c := range cs {
		s := c.Document
		if c.Page > 0 {
			s += " p. " + strconv.Itoa(c.Page)
		}
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		parts = append(parts, s)
		if len(parts) == maxCitations {
			break
		}
	}
	return strings.Join(parts, "; ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Result is a rewritten question and what the call cost.
type Result struct {
	Question string
	Usage    model.Usage
}

// ErrBadRewrite means the model's reply was not a usable question.
var ErrBadRewrite = errors.New("the model's rewrite is not a usable question")

// Rewrite asks chat for the standalone form of question. opts are the run's sampling and context options; the reply
// is capped, since only one line is wanted, and thinking is turned off where the run turned it on (thinks says so).
// Where the run left thinking alone it is left alone here too: Ollama refuses "think" for models without it.
func Rewrite(ctx context.Context, chat model.Chat, modelName string, opts model.Options, thinks bool, history []Turn, question string) (Result, error) {
	if thinks || opts.Think != nil {
		off := false
		opts.Think = &off
	}
	if opts.MaxTokens == 0 || opts.MaxTokens > maxTokens {
		opts.MaxTokens = maxTokens
	}
	opts.Stop = nil
	s, err := chat.Chat(ctx, model.Request{Model: modelName, Messages: Messages(history, question), Options: opts})
	if err != nil {
		return Result{}, fmt.Errorf("rewrite follow-up: %w", err)
	}
	d, err := model.Collect(s)
	var res Result
	if d.Usage != nil {
		res.Usage = *d.Usage
	}
	if err != nil {
		return res, fmt.Errorf("rewrite follow-up: %w", err)
	}
	q, ok := Parse(d.Content, question)
	if !ok {
		return res, fmt.Errorf("rewrite follow-up: %w: %q", ErrBadRewrite, truncate(d.Content, 200))
	}
	res.Question = q
	return res, nil
}

var (
	thinkRE  = regexp.MustCompile(`(?s)<think>.*?</think>`)
	prefixRE = regexp.MustCompile(`(?i)^(standalone question|rewritten question|question)\s*[:：]\s*`)
)

// Parse takes the question out of a model's reply: the first non-empty line, without thinking, a label or quotes.
// It refuses a reply that is empty or far longer than a question.
func Parse(reply, original string) (string, bool) {
	reply = thinkRE.ReplaceAllString(reply, "")
	if i := strings.Index(reply, "<think>"); i >= 0 { // an unclosed thought: nothing after it is the answer
		reply = reply[:i]
	}
	var line string
	for _, l := range strings.Split(reply, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = prefixRE.ReplaceAllString(line, "")
	line = strings.TrimSpace(strings.Trim(line, "\"'“”‘’`*"))
	if line == "" || len([]rune(line)) > 4*len([]rune(original))+300 {
		return "", false
	}
	return line, true
}
