package search

import (
	"maps"
	"math"
	"strings"
	"testing"

	"proofglass/backend/glove"
)

func TestPassageShare(t *testing.T) {
	tb, err := glove.Default()
	if err != nil {
		t.Fatal(err)
	}
	w := func(word string) float64 { return wordWeight(tb, word) }
	filler := strings.Repeat(" filler", passageWidth+5)
	cases := map[string]struct {
		question, text string
		want           float64
	}{
		"together":        {"What color is the loss curve?", "The loss curve is drawn in blue color.", 1},
		"apart":           {"What color is the loss curve?", "The loss" + filler + " curve has a color.", (w("curve") + w("color")) / (w("color") + w("loss") + w("curve"))},
		"inflections":     {"Which degrees were awarded?", "He was awarding a degree.", 1},
		"repeats-once":    {"What color is the loss curve?", "loss loss loss loss", w("loss") / (w("color") + w("loss") + w("curve"))},
		"none":            {"What color is the loss curve?", "Nothing here matches.", 0},
		"stop-words-only": {"What is it?", "What is it?", 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			q, err := newQueryWords(c.question)
			if err != nil {
				t.Fatal(err)
			}
			if got := q.passageShare(c.text, map[string]int{}); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("passageShare(%q, %q) = %v, want %v", c.question, c.text, got, c.want)
			}
		})
	}
	t.Run("rare-words-weigh-more", func(t *testing.T) {
		q, _ := newQueryWords("Which program did Lebour lead?")
		rare, common := q.passageShare("Lebour", map[string]int{}), q.passageShare("program", map[string]int{})
		if rare <= common {
			t.Errorf("share of a name GloVe lacks %v, of a common word %v: want the name to weigh more", rare, common)
		}
	})
}

// TestPassageRerank checks that of two pages holding the question's words, the one that holds them together comes
// first with the passage boost, although BM25 alone prefers the page that repeats one of them.
func TestPassageRerank(t *testing.T) {
	filler := strings.Repeat(" filler", 2*passageWidth)
	pages := []string{
		"The loss loss" + filler + " curve" + filler + " color.", // scattered, "loss" twice
		"The loss curve color is blue." + filler + filler,        // together
	}
	got := firstPageWith(t, pages, "What is the color of the loss curve?",
		map[string]StructureWeights{"bm25-alone": {}, "passage-boost": {Passage: 1}})
	if want := map[string]int{"bm25-alone": 1, "passage-boost": 2}; !maps.Equal(got, want) {
		t.Errorf("first pages %v, want %v", got, want)
	}
}

func TestEachToken(t *testing.T) {
	var first [256]bool
	for _, c := range "lu3é" {
		if c < 0x80 {
			first[c] = true
		}
	}
	cases := map[string]struct {
		text string
		want []string // "" where the token cannot match
	}{
		"ascii":       {"The Loss curve", []string{"", "loss", ""}},
		"punctuation": {"USGCRP’s loss_cls (3.3)", []string{"usgcrp", "", "loss", "", "3", "3"}},
		"non-ascii":   {"Über élan", []string{"über", "élan"}},
		"empty":       {" ,.; ", nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got, all []string
			eachToken(c.text, first, func(tok string) { got = append(got, tok) })
			glove.Tokens(c.text, func(tok string) { all = append(all, tok) })
			if len(got) != len(all) {
				t.Fatalf("eachToken(%q) gave %d tokens %q, glove.Tokens %d %q", c.text, len(got), got, len(all), all)
			}
			for i := range got {
				if got[i] != c.want[i] || got[i] != "" && got[i] != all[i] {
					t.Errorf("token %d of %q = %q, want %q (glove.Tokens: %q)", i, c.text, got[i], c.want[i], all[i])
				}
			}
		})
	}
}

// TestMayMatch checks mayMatch's premise over the built-in vocabulary: a word's Porter stem keeps its first two
// bytes, but for the four words its comment names.
func TestMayMatch(t *testing.T) {
	tb, err := glove.Default()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{"eed": true, "eyed": true, "ied": true, "ieds": true}
	for i := range tb.Len() {
		w := tb.Word(i)
		q := queryWords{pre2: []string{stem(w)[:min(2, len(stem(w)))]}}
		if !q.mayMatch(w) && !known[w] {
			t.Errorf("mayMatch(%q) false for its own stem %q", w, stem(w))
		}
	}
	q, _ := newQueryWords("loss curve")
	for tok, want := range map[string]bool{"losses": true, "curves": true, "lo": true, "color": false, "l": false} {
		if got := q.mayMatch(tok); got != want {
			t.Errorf("mayMatch(%q) = %v, want %v", tok, got, want)
		}
	}
}
