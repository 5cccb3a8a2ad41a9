package eval

import (
	"math"
	"testing"
)

func TestScoreAnswerGolden(t *testing.T) {
	cases := map[string]struct {
		ref, pred, format string
		want              float64
	}{
		"int equal":                  {"8", "8", "Int", 1},
		"int from float text":        {"8", "8.0", "Int", 1},
		"int truncates like python":  {"8", "8.9", "Int", 1},
		"int wrong":                  {"8", "9", "Int", 0},
		"int not a number":           {"8", "eight", "Int", 0},
		"int refused":                {"8", NotAnswerable, "Int", 0},
		"float equal":                {"64.3", "64.3", "Float", 1},
		"float within 1 percent":     {"64.3", "64.9", "Float", 1},
		"float outside 1 percent":    {"64.3", "66", "Float", 0},
		"float percent sign":         {"64.3", "64.3%", "Float", 1},
		"float as a fraction":        {"64.3", "0.643", "Float", 1},
		"float reference percent":    {"12.5%", "0.125", "Float", 1},
		"float dollars":              {"$1.25", "1.25", "Float", 1},
		"float rounding precision":   {"0.1234", "0.12", "Float", 1},
		"float million unit":         {"3.5", "3.5 million", "Float", 1},
		"float miles unit":           {"26.2", "26.2 miles", "Float", 1},
		"str exact":                  {"M.A.", "M.A.", "Str", 1},
		"str case and quotes":        {"Program-Guided Reasoning", "'program-guided reasoning'", "Str", 1},
		"str anls partial":           {"Kent", "Kents", "Str", 0.8},
		"str anls below threshold":   {"Kent", "Normandy", "Str", 0},
		"str parentheses dropped":    {"FEVEROUS", "FEVEROUS (dataset)", "Str", 1},
		"str url exact only":         {"https://x.org/a", "https://x.org/b", "Str", 0},
		"str page exact only":        {"page 12", "page 13", "Str", 0},
		"str date exact":             {"2003-10-07", "2003-10-07", "Str", 1},
		"str date near miss":         {"2003-10-07", "2003-10-08", "Str", 0},
		"str email":                  {"a@b.org", "a@b.org", "Str", 1},
		"str time exact only":        {"9 a.m.", "10 a.m.", "Str", 0},
		"list order ignored":         {"['Chapter 2', 'Chapter 3']", "['Chapter 3', 'Chapter 2']", "List", 1},
		"list length differs":        {"['Chapter 2', 'Chapter 3']", "['Chapter 2']", "List", 0},
		"list numbers exact":         {"['1', '2']", "[2, 1]", "List", 1},
		"list numbers wrong":         {"['1', '2']", "[2, 3]", "List", 0},
		"list least anls":            {"['Kent', 'Brittany']", "['Kents', 'Brittany']", "List", 0.8},
		"list double quotes":         {`["a b", "c"]`, "['c', 'a b']", "List", 1},
		"none refusal":               {"Not answerable", NotAnswerable, "None", 1},
		"none invented answer":       {"Not answerable", "42", "None", 0},
		"none alternative zero":      {"Not answerable or 0 or none", "0", "None", 1},
		"none alternative none":      {"Not answerable or 0 or none", "None", "None", 1},
		"none alternative refusal":   {"Not answerable or 0 or none", NotAnswerable, "None", 1},
		"none alternative wrong":     {"Not answerable or 0 or none", "7", "None", 0},
		"answerable refused str":     {"M.A.", NotAnswerable, "Str", 0},
		"str empty prediction":       {"M.A.", "", "Str", 0},
		"str phone number exact":     {"555-1234", "555-1234", "Str", 1},
		"str phone number near miss": {"555-1234", "555-1235", "Str", 0},
		"str leading dollar":         {"$5", "5", "Str", 1},
		"str trailing percent":       {"45%", "45", "Str", 1},
		"unknown format is string":   {"abc", "abc", "", 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := ScoreAnswer(c.ref, c.pred, c.format)
			if math.Abs(got-c.want) > 1e-9 {
				t.Errorf("ScoreAnswer(%q, %q, %s) = %v, want %v", c.ref, c.pred, c.format, got, c.want)
			}
		})
	}
}

func TestExtractAnswer(t *testing.T) {
	cases := map[string]struct {
		answer, format, want string
	}{
		"int first number":        {"There are 12 tables.", "Int", "12"},
		"int thousands separator": {"1,204 people", "Int", "1204"},
		"int percent dropped":     {"45%", "Int", "45"},
		"float keeps percent":     {"about 64.3% of them", "Float", "64.3%"},
		"float dollar":            {"$1,250.50", "Float", "1250.50"},
		"refusal":                 {"The document does not mention this.", "Str", NotAnswerable},
		"refusal sorry":           {"Sorry, I can not retrieval something about the question.", "Int", NotAnswerable},
		"empty":                   {"  ", "Str", NotAnswerable},
		"answer tags stripped":    {"<answer> M.A. </answer>", "Str", "M.A."},
		"list literal kept":       {"['a', 'b']", "List", "['a', 'b']"},
		"list from prose":         {"Kent, East Sussex and Normandy.", "List", `["Kent", "East Sussex", "Normandy"]`},
		"str full stop":           {"Beijing.", "Str", "Beijing"},
		"int no number":           {"many", "Int", "many"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ExtractAnswer(c.answer, c.format); got != c.want {
				t.Errorf("ExtractAnswer(%q, %s) = %q, want %q", c.answer, c.format, got, c.want)
			}
		})
	}
}

func TestAccAndF1(t *testing.T) {
	// 3 answerable (scores 1, 0.5, 0 where the last was refused) and 2 unanswerable (one refused correctly, one
	// hallucinated). Accuracy = 2.5/5; recall = 1.5/3; precision = 1.5/3 (predictions other than refusals: 3).
	xs := []ScoredAnswer{
		{Answerable: true, Predicted: "a", Score: 1},
		{Answerable: true, Predicted: "b", Score: 0.5},
		{Answerable: true, Predicted: NotAnswerable, Score: 0},
		{Answerable: false, Predicted: NotAnswerable, Score: 1},
		{Answerable: false, Predicted: "42", Score: 0},
	}
	got := AccAndF1(xs)
	if got.N != 5 || math.Abs(got.Accuracy-0.5) > 1e-12 || math.Abs(got.F1-0.5) > 1e-12 {
		t.Fatalf("AccAndF1 = %+v, want n 5, accuracy 0.5, f1 0.5", got)
	}
	// Refusing everything: accuracy from the unanswerable ones only, F1 zero.
	none := AccAndF1([]ScoredAnswer{{Answerable: true, Predicted: NotAnswerable}, {Predicted: NotAnswerable, Score: 1}})
	if none.Accuracy != 0.5 || none.F1 != 0 {
		t.Fatalf("refuse-all = %+v, want accuracy 0.5, f1 0", none)
	}
}
