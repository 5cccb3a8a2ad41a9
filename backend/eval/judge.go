package eval

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"proofglass/backend/model"
)

// judgeTemplate is VRAG-RL's judge prompt, byte for byte (vrag.md §2e).
//
//go:embed prompts/judge.txt
var judgeTemplate string

// JudgePrompt fills the judge prompt. The reference formats it with Python's str.format, so each placeholder is
// replaced once, left to right, and text inside the values is never re-expanded.
func JudgePrompt(query, reference, generated string) string {
	r := strings.NewReplacer("{query}", query, "{reference_answer}", reference, "{generated_answer}", generated)
	return r.Replace(judgeTemplate)
}

// noAnswer is what the reference hands the judge when a trajectory has no <answer> at all.
const noAnswer = "Please Judge False"

var judgeRe = regexp.MustCompile(`<judge>(.*?)</judge>`)

// ErrVerdict means the judge's reply held no <judge>True|False</judge>.
var ErrVerdict = errors.New("judge reply has no <judge>True</judge> or <judge>False</judge>")

// ParseVerdict reads the judge's reply: 1 for True, 0 for False (the first <judge> tag, case-insensitive).
func ParseVerdict(reply string) (float64, error) {
	m := judgeRe.FindStringSubmatch(reply)
	if m == nil {
		return 0, ErrVerdict
	}
	switch strings.ToLower(strings.TrimSpace(m[1])) {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	return 0, fmt.Errorf("%w: got %q", ErrVerdict, m[1])
}

// Judge asks a chat model whether an answer is right, with the VRAG-RL prompt as the only (user) message.
type Judge struct {
	Chat  model.Chat
	Model string
	// Tries bounds the attempts on a failed call or an unreadable verdict (the reference retries forever); 3 if 0.
	Tries int
}

// Verdict is one judgement.
type Verdict struct {
	Score            float64 `json:"score"` // 1 correct, 0 not
	Reply            string  `json:"reply"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Calls            int     `json:"calls"`
}

// Judge judges generated against reference for query. Greedy decoding: a judge should not be sampled.
func (j *Judge) Judge(ctx context.Context, query, reference, generated string) (Verdict, error) {
	tries := j.Tries
	if tries <= 0 {
		tries = 3
	}
	zero := 0.0
	req := model.Request{Model: j.Model, Options: model.Options{Temperature: &zero},
		Messages: []model.Message{model.TextMessage(model.RoleUser, JudgePrompt(query, reference, generated))}}
	var v Verdict
	var last error
	for range tries {
		v.Calls++
		st, err := j.Chat.Chat(ctx, req)
		if err != nil {
			last = err
			if ctx.Err() != nil {
				break
			}
			continue
		}
		d, err := model.Collect(st)
		if d.Usage != nil {
			v.PromptTokens += d.Usage.PromptTokens
			v.CompletionTokens += d.Usage.CompletionTokens
		}
		if err != nil {
			last = err
			continue
		}
		v.Reply = d.Content
		s, err := ParseVerdict(d.Content)
		if err != nil {
			last = err
			continue
		}
		v.Score = s
		return v, nil
	}
	return v, fmt.Errorf("judge %s after %d tries: %w", j.Model, v.Calls, last)
}
