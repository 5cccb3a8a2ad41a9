package agent

import (
	_ "embed"
	"strings"
)

// The reference prompts, byte for byte (vrag.md §2a, §2b, §2e). They live in files because they contain backticks.
var (
	// vragUserTemplate is VRAG-RL's USER_PROMPT: the training copy, without the demo's trailing newline, because the
	// trained policy saw exactly this text.
	//go:embed prompts/vrag_user.txt
	vragUserTemplate string
	//go:embed prompts/vimrag_system.txt
	vimragSystemPrompt string
	//go:embed prompts/vimrag_user.txt
	vimragUserTemplate string
	//go:embed prompts/vimrag_summary.txt
	vimragSummaryPrompt string
)

// VRAG-RL's observations (§2a, §2e).
const (
	vragAnswerNow = "please answer the question now with answer in <answer> ... </answer>"
	vragSorry     = "Sorry, I can not retrieval something about the question."
	// vragInvalid answers a bad bbox or a crop before any image (the user-turn text of the training observation).
	vragInvalid = "Your previous action is invalid. You must conduct reasoning inside <think> and </think> first every time you get new information. After reasoning, if you find you lack some knowledge, you can call a search engine by <search> query </search> and user will return the searched results. Every time you retrieve an image, you have the option to crop it to obtain a clearer view, the format for coordinates is <bbox>[x1, y1, x2, y2]</bbox>. You can search as many times as your want. If you find no further external knowledge needed, you can directly provide the answer inside <answer> and </answer>, without detailed illustrations. For example, <answer> Beijing </answer>. Please try again.\n"
	// vragNoTag answers a turn with no action tag at all (training's shorter variant).
	vragNoTag = "Your previous action is invalid. You must conduct reasoning inside <think> and </think> first every time you get new information. After reasoning, if you want to search, you should put the query between <search> and </search>.\nIf you find no further external knowledge needed, you can directly provide the answer inside <answer> and </answer>, without detailed illustrations. For example, <answer> Beijing </answer>. Please try again.\n"
)

// Proofglass's own texts, for situations the reference never handles (it crashes or resends a duplicate).
const (
	noNewResults    = "No new results were found for this query; all of them have already been shown. Please try a different query or answer the question."
	noResults       = "No results were found for this query. Please try a different query or answer the question."
	reactTemplate   = "Answer the given question. You must conduct reasoning inside <think> and </think> first every time you get new information. After reasoning, if you find you lack some knowledge, you can call a search engine by <search> query </search> and user will return the searched results. You can search as many times as your want. If you find no further external knowledge needed, you can directly provide the answer inside <answer> and </answer>, without detailed illustrations. For example, <answer> Beijing </answer>. Question: {question}"
	vanillaTemplate = "Answer the given question using the retrieved images above. Provide the answer inside <answer> and </answer>, without detailed illustrations. For example, <answer> Beijing </answer>. Question: {question}"
)

// VRAGPrompt is the first (and only instruction) user message of a vrag run.
func VRAGPrompt(question string) string {
	return strings.Replace(vragUserTemplate, "{question}", question, 1)
}

// ReActPrompt is the first user message of a react run: VRAG's prompt without the crop action.
func ReActPrompt(question string) string {
	return strings.Replace(reactTemplate, "{question}", question, 1)
}

// VanillaPrompt follows the retrieved images in a vanilla run's single user message.
func VanillaPrompt(question string) string {
	return strings.Replace(vanillaTemplate, "{question}", question, 1)
}

// VimRAGSystemPrompt is VimRAG's SYSTEM_PROMPT.
func VimRAGSystemPrompt() string { return vimragSystemPrompt }

// VimRAGSummaryPrompt is VimRAG's SUMMARY_PROMPT.
func VimRAGSummaryPrompt() string { return vimragSummaryPrompt }

// VimRAGUserPrompt is VimRAG's USER_PROMPT filled with the question and the graph's JSON. Python's str.format
// substitutes both at once, so a "{action_graph}" inside the question stays literal.
func VimRAGUserPrompt(question, graphJSON string) string {
	r := strings.NewReplacer("{query}", question, "{action_graph}", graphJSON)
	return r.Replace(vimragUserTemplate)
}
