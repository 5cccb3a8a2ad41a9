package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Rollout formats.
const (
	FormatVerl     = "verl"     // Parquet, one row per trajectory (schema in the README)
	FormatShareGPT = "sharegpt" // LLaMA-Factory SFT JSON, successful trajectories only
	FormatJSONL    = "jsonl"    // one Rollout as JSON per line
)

// ChatTurn is one turn of an exported trajectory: images appear in Content as "<image>", in the order of the
// row's Images. LossMask is 1 for the model's own turns and 0 for the prompt and environment turns (observations),
// which are not trained on.
type ChatTurn struct {
	Role     string `json:"role" parquet:"role"`
	Content  string `json:"content" parquet:"content"`
	LossMask int32  `json:"loss_mask" parquet:"loss_mask"`
}

// PromptTurn is a turn of the prompt as verl's dataset reads it.
type PromptTurn struct {
	Role    string `json:"role" parquet:"role"`
	Content string `json:"content" parquet:"content"`
}

// ExtraInfo is where verl's reward manager reads the NDCG inputs (errata §2).
type ExtraInfo struct {
	Index         int64   `json:"index" parquet:"index"`
	Question      string  `json:"question" parquet:"question"`
	Answer        string  `json:"answer" parquet:"answer"`
	FileName      string  `json:"file_name" parquet:"file_name"`
	ReferencePage []int32 `json:"reference_page" parquet:"reference_page,list"`
}

// RewardModel is verl's ground-truth column.
type RewardModel struct {
	Style       string `json:"style" parquet:"style"`
	GroundTruth string `json:"ground_truth" parquet:"ground_truth"`
}

// Rollout is one exported trajectory: a run (vrag, react, vanilla), or one model call of a vimrag run (its
// context was rebuilt for that node), with the run's reward and group advantage.
type Rollout struct {
	ID           string       `json:"id" parquet:"id"`
	DataSource   string       `json:"data_source" parquet:"data_source"`
	Evaluation   int64        `json:"evaluation" parquet:"evaluation"`
	RunID        int64        `json:"run_id" parquet:"run_id"`
	QuestionID   string       `json:"question_id" parquet:"question_id"`
	Mode         string       `json:"mode" parquet:"mode"`
	Sample       int32        `json:"sample" parquet:"sample"`
	Step         int32        `json:"step" parquet:"step"`
	NodeID       string       `json:"node_id" parquet:"node_id"`
	OnAnswerPath bool         `json:"on_answer_path" parquet:"on_answer_path"`
	Prompt       []PromptTurn `json:"prompt" parquet:"prompt,list"`
	Messages     []ChatTurn   `json:"messages" parquet:"messages,list"`
	Images       []string     `json:"images" parquet:"images,list"`
	Text         string       `json:"text" parquet:"text"` // the whole trajectory in the Qwen chat template
	Reward       float64      `json:"reward" parquet:"reward"`
	// ToolCalls are the run's tool calls, one line each (see ToolCallsOf); NumToolCalls counts them (an older run's
	// tool steps when its calls were not recorded).
	ToolCalls     []string    `json:"tool_calls" parquet:"tool_calls,list"`
	NumToolCalls  int32       `json:"num_tool_calls" parquet:"num_tool_calls"`
	Advantage     float64     `json:"advantage" parquet:"advantage"`
	Judge         float64     `json:"judge" parquet:"judge"`
	Format        float64     `json:"format" parquet:"format"`
	NDCG          float64     `json:"ndcg" parquet:"ndcg"`
	Score         float64     `json:"score" parquet:"score"`
	Success       bool        `json:"success" parquet:"success"`
	Answer        string      `json:"answer" parquet:"answer"`
	FileName      string      `json:"file_name" parquet:"file_name"`
	ReferencePage []int32     `json:"reference_page" parquet:"reference_page,list"`
	Ability       string      `json:"ability" parquet:"ability"`
	RewardModel   RewardModel `json:"reward_model" parquet:"reward_model"`
	ExtraInfo     ExtraInfo   `json:"extra_info" parquet:"extra_info"`
}

// Rollouts turns a report's scored items into trajectories, with the VRAG-RL reward. A run without a recorded call
// is left out.
func Rollouts(rep *AnswersReport, qs []Question) []Rollout {
	return RolloutsWith(rep, qs, RolloutOptions{})
}

// RolloutsWith is Rollouts with the reward weighed by o (ToolReward), the advantages taken over those rewards.
func RolloutsWith(rep *AnswersReport, qs []Question, o RolloutOptions) []Rollout {
	rewards, advantages := reweigh(rep.Items, o)
	byID := map[string]Question{}
	index := map[string]int64{}
	for i, q := range qs {
		byID[q.ID] = q
		index[q.ID] = int64(i)
	}
	var out []Rollout
	for k, it := range rep.Items {
		q := byID[it.QuestionID]
		reward, advantage := it.Reward, it.Advantage
		if o.ToolWeight != 0 {
			reward, advantage = rewards[k], advantages[k]
		}
		pages := make([]int32, len(q.EvidencePages))
		for i, p := range q.EvidencePages {
			pages[i] = int32(p)
		}
		for _, c := range it.Calls {
			tr := TrajectoryOf(c)
			id := fmt.Sprintf("e%d-%s-%s-%d", rep.Evaluation, it.QuestionID, it.Mode, it.Sample)
			if it.Mode == "vimrag" {
				id += fmt.Sprintf("-%d", c.Step)
			}
			r := Rollout{ID: id, DataSource: "proofglass", Evaluation: rep.Evaluation, RunID: it.RunID, QuestionID: it.QuestionID,
				Mode: it.Mode, Sample: int32(it.Sample), Step: int32(c.Step), NodeID: c.NodeID, OnAnswerPath: c.OnAnswerPath,
				Text: tr.PromptText() + tr.Response(), Reward: reward, Advantage: advantage, Judge: it.Judge,
				ToolCalls: toolLines(it.ItemResult), NumToolCalls: int32(toolCount(it.ItemResult)),
				Format: it.Format, NDCG: it.NDCG, Score: it.Score, Success: it.Judge >= 0.5, Answer: it.Answer,
				FileName: q.Doc, ReferencePage: pages, Ability: "visual-rag",
				RewardModel: RewardModel{Style: "model", GroundTruth: q.Answer},
				ExtraInfo:   ExtraInfo{Index: index[q.ID], Question: q.Question, Answer: q.Answer, FileName: q.Doc, ReferencePage: pages},
				Images:      []string{}}
			for _, m := range tr.Prompt {
				r.Prompt = append(r.Prompt, PromptTurn{Role: m.Role, Content: turnContent(m)})
			}
			for _, ms := range [][]Message{tr.Prompt, tr.Turns} {
				for _, m := range ms {
					mask := int32(0)
					if m.Role == "assistant" {
						mask = 1
					}
					r.Messages = append(r.Messages, ChatTurn{Role: m.Role, Content: turnContent(m), LossMask: mask})
				}
			}
			for _, img := range tr.Images() {
				r.Images = append(r.Images, imagePath(img))
			}
			out = append(out, r)
		}
	}
	return out
}

// turnContent renders a turn's text with "<image>" where its images go; native tool calls follow as
// <tool_call> blocks, as Qwen's template writes them.
func turnContent(m Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Image != "" {
			b.WriteString("<image>")
		} else {
			b.WriteString(p.Text)
		}
	}
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(&b, "\n<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", tc.Name, orEmptyJSON(tc.Arguments))
	}
	return b.String()
}

func orEmptyJSON(s string) string {
	if strings.TrimSpace(s) == "" || !json.Valid([]byte(s)) {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return s
}

func imagePath(blob string) string { return "images/" + blob + ".jpg" }

// ShareGPTRecord is one LLaMA-Factory SFT sample (sharegpt format with "messages", role/content tags).
type ShareGPTRecord struct {
	System   string       `json:"system,omitempty"`
	Messages []PromptTurn `json:"messages"`
	Images   []string     `json:"images"`
}

// WriteRollouts writes rows in format to dir (rollouts.parquet, sharegpt.json or rollouts.jsonl) and their images to
// dir/images, reading each image through blob. It returns the file written and the number of trajectories in it.
// sharegpt keeps successful trajectories only (judge verdict right); of a vimrag run, the calls on the answer's
// ancestor path.
func WriteRollouts(dir, format string, rows []Rollout, blob func(id string) ([]byte, error)) (string, int, error) {
	switch format {
	case FormatVerl, FormatJSONL, FormatShareGPT:
	default:
		return "", 0, fmt.Errorf("%w %q (want verl, sharegpt or jsonl)", ErrUnknownFormat, format)
	}
	if format == FormatShareGPT {
		var kept []Rollout
		for _, r := range rows {
			if r.Success && (r.Mode != "vimrag" || r.OnAnswerPath) {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	if err := os.MkdirAll(filepath.Join(dir, "images"), 0o755); err != nil {
		return "", 0, fmt.Errorf("export: %w", err)
	}
	written := map[string]bool{}
	for _, r := range rows {
		for _, p := range r.Images {
			if written[p] {
				continue
			}
			written[p] = true
			id := strings.TrimSuffix(strings.TrimPrefix(p, "images/"), ".jpg")
			data, err := blob(id)
			if err != nil {
				return "", 0, fmt.Errorf("export image %s of %s: %w", id, r.ID, err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), data, 0o644); err != nil {
				return "", 0, fmt.Errorf("export: %w", err)
			}
		}
	}
	switch format {
	case FormatVerl:
		path := filepath.Join(dir, "rollouts.parquet")
		if err := parquet.WriteFile(path, rows); err != nil {
			return "", 0, fmt.Errorf("write %s: %w", path, err)
		}
		return path, len(rows), nil
	case FormatJSONL:
		path := filepath.Join(dir, "rollouts.jsonl")
		var b strings.Builder
		for _, r := range rows {
			line, err := json.Marshal(r)
			if err != nil {
				return "", 0, err
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		return path, len(rows), writeFile(path, []byte(b.String()))
	case FormatShareGPT:
		path := filepath.Join(dir, "sharegpt.json")
		recs := make([]ShareGPTRecord, 0, len(rows))
		for _, r := range rows {
			rec := ShareGPTRecord{Images: r.Images}
			for _, m := range r.Messages {
				if m.Role == "system" {
					rec.System = m.Content
					continue
				}
				rec.Messages = append(rec.Messages, PromptTurn{Role: m.Role, Content: m.Content})
			}
			recs = append(recs, rec)
		}
		b, err := json.MarshalIndent(recs, "", " ")
		if err != nil {
			return "", 0, err
		}
		return path, len(recs), writeFile(path, b)
	}
	panic("unreachable")
}

func writeFile(path string, b []byte) error {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// ErrUnknownFormat is returned for a format WriteRollouts does not know.
var ErrUnknownFormat = errors.New("unknown rollout format")
