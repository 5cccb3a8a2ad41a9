package search

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"proofglass/backend/glove"
	"proofglass/backend/kb"
)

func TestStemPorterExamples(t *testing.T) {
	// Examples from Porter's 1980 paper, run through the whole algorithm, plus the short-word and digit cases.
	cases := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"degrees": "degre", "degree": "degre", "analogy": "analog", "as": "as", "is": "is", "1990s": "1990",
		// FTS5's readings of step 1b.
		"eed": "e", "sayyed": "sai",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := stem(in); got != want {
				t.Errorf("stem(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

// TestStemAgreesWithFTS5 stems the built-in GloVe vocabulary with FTS5's porter tokenizer in a real SQLite file and
// with stem: hit boxes are only right if both reduce every word alike.
func TestStemAgreesWithFTS5(t *testing.T) {
	tab, err := glove.Default()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", kb.DSN(filepath.Join(t.TempDir(), "stem.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE w USING fts5(text, tokenize='porter unicode61 remove_diacritics 2');
		CREATE VIRTUAL TABLE wv USING fts5vocab(w, 'instance');`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for i := range tab.Len() {
		w := tab.Word(i)
		if !asciiWord(w) { // unicode61 folds diacritics before porter sees them; stem gets the page's spelling
			continue
		}
		words = append(words, w)
		if _, err := tx.ExecContext(ctx, `INSERT INTO w(rowid, text) VALUES (?, ?)`, len(words), w); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT doc, term FROM wv WHERE offset = 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	checked, bad := 0, 0
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		checked++
		if got := stem(words[doc-1]); got != term {
			if bad++; bad <= 20 {
				t.Errorf("stem(%q) = %q, FTS5 porter gives %q", words[doc-1], got, term)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if checked < len(words)*9/10 {
		t.Fatalf("compared only %d of %d words", checked, len(words))
	}
	if bad > 0 {
		t.Errorf("%d of %d words stem differently from FTS5", bad, checked)
	}
	t.Logf("%d words stem as FTS5 does", checked)
}

func asciiWord(w string) bool {
	for i := range len(w) {
		if c := w[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return w != ""
}
