package eval

import (
	"math"
	"path/filepath"
	"regexp"
	"strings"

	"proofglass/backend/pagecache"
)

// The VRAG-RL reward (vrag.md §2e): 0.7·judge + 0.1·format + 0.2·NDCG when the format check passes, else 0.

// Reward weights of VRAG-RL's RMManager.
const (
	WeightJudge  = 0.7
	WeightFormat = 0.1
	WeightNDCG   = 0.2
)

var (
	// userSpanIntended is the user-span pattern as meant: it spans the newline after "user".
	userSpanIntended = regexp.MustCompile(`(?s)<\|im_start\|>user.*?<\|im_end\|>`)
	// userSpanOriginal is the reference's pattern exactly: without DOTALL it never crosses the newline that
	// follows "user", so it strips nothing (errata §1).
	userSpanOriginal = regexp.MustCompile(`<\|im_start\|>user.*?<\|im_end\|>`)
	answerSpan       = regexp.MustCompile(`(?s)<answer>.*</answer>`)
	searchSpan       = regexp.MustCompile(`(?s)<search>.*</search>`)
	lastAnswer       = regexp.MustCompile(`(?s)<answer>(.*?)</answer>`)
)

// StripUserSpans removes the observation (user) turns from a rendered response. With original set it applies the
// reference's regular expression as written, which removes nothing (errata §1); by default it removes them, so the
// instruction text inside an invalid-action observation cannot pass the format check or be judged as the answer.
func StripUserSpans(response string, original bool) string {
	if original {
		return userSpanOriginal.ReplaceAllString(response, "")
	}
	return userSpanIntended.ReplaceAllString(response, "")
}

// FormatScore is compute_format_reward_only: 1 when the response (user spans stripped as above) holds both an
// <answer>…</answer> and a <search>…</search>, else 0.
func FormatScore(response string, original bool) float64 {
	s := StripUserSpans(response, original)
	return b2f(answerSpan.MatchString(s) && searchSpan.MatchString(s))
}

// GeneratedAnswer is what the reference hands the judge: the text of the last <answer>…</answer> of the response
// (user spans stripped as above), or "Please Judge False".
func GeneratedAnswer(response string, original bool) string {
	m := lastAnswer.FindAllStringSubmatch(StripUserSpans(response, original), -1)
	if len(m) == 0 {
		return noAnswer
	}
	return m[len(m)-1][1]
}

// PageID names a page as VRAG's corpus names its image files, and as serve names the page files it hands out,
// without the extension: the PDF's name up to ".pdf" (an image's name without its extension), "_", the 1-based page
// number, whole (a file's own name may have its stem cut to fit the file system; serve's items carry this name).
// The NDCG reward compares pages by this name only.
func PageID(doc string, page int) string {
	isPDF := strings.Contains(doc, ".pdf") || strings.EqualFold(filepath.Ext(doc), ".pdf")
	return pagecache.PageName(doc, isPDF, page)
}

// NDCG is the reference's retrieval reward: binary relevance of each retrieved page (repeats count again) at its
// 1-based position, over the DCG of len(golden) relevant pages followed by zeros up to len(retrieved).
func NDCG(retrieved, golden []string) float64 {
	gold := map[string]bool{}
	for _, g := range golden {
		gold[g] = true
	}
	rel := make([]float64, len(retrieved))
	for i, r := range retrieved {
		rel[i] = b2f(gold[r])
	}
	ideal := make([]float64, max(len(golden), len(retrieved)))
	for i := range golden {
		ideal[i] = 1
	}
	idcg := dcg(ideal)
	if idcg == 0 {
		return 0
	}
	return dcg(rel) / idcg
}

func dcg(rel []float64) float64 {
	var s float64
	for i, r := range rel {
		s += (math.Pow(2, r) - 1) / math.Log2(float64(i)+2)
	}
	return s
}

// Reward combines the three parts as RMManager does: zero unless the format check passed.
func Reward(judge, format, ndcg float64) float64 {
	if format <= 0 {
		return 0
	}
	return WeightJudge*judge + WeightFormat*format + WeightNDCG*ndcg
}

// ToolReward adds a tool-efficiency term to the VRAG-RL reward, as VISTA-style training weighs it: with weight w
// and a budget of n tool calls, (1−w)·Reward(judge, format, ndcg) + w·judge·max(0, 1 − calls/n). Fewer calls for
// the same verdict score higher; w = 0 is Reward exactly.
func ToolReward(judge, format, ndcg float64, calls int, w float64, n int) float64 {
	base := Reward(judge, format, ndcg)
	if w == 0 {
		return base
	}
	eff := 0.0
	if n > 0 {
		eff = math.Max(0, 1-float64(calls)/float64(n))
	}
	return (1-w)*base + w*judge*eff
}

// Advantages are GRPO's group-normalised advantages as verl computes them: (r − mean) / (std + 1e-6) with the
// Bessel-corrected standard deviation; a group of one has mean 0 and std 1.
func Advantages(rewards []float64) []float64 {
	out := make([]float64, len(rewards))
	n := len(rewards)
	if n == 0 {
		return out
	}
	mean, std := 0.0, 1.0
	if n > 1 {
		for _, r := range rewards {
			mean += r
		}
		mean /= float64(n)
		var ss float64
		for _, r := range rewards {
			ss += (r - mean) * (r - mean)
		}
		std = math.Sqrt(ss / float64(n-1))
	}
	for i, r := range rewards {
		out[i] = (r - mean) / (std + 1e-6)
	}
	return out
}
