package kb

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestCJKBigramText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain English text", "plain English text"},
		{"鲁迅", " 鲁迅 "},
		{"鲁迅《祝福》", " 鲁迅 《 祝福 》"},
		{"节", " 节 "},
		{"zhlipsum 依赖宏包", "zhlipsum  依赖 赖宏 宏包 "},
		{"第 1 节 简介", " 第  1  节   简介 "},
		{"カタカナと漢字", " カタ タカ カナ ナと と漢 漢字 "},
		{"한국어 text", " 한국 국어  text"},
		{"bad \xff 字", "bad \xff  字 "},
	} {
		if got := CJKBigramText(tc.in); got != tc.want {
			t.Errorf("CJKBigramText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var grams []string
	CJKBigrams("假文取自鲁迅 x 的", func(g string) { grams = append(grams, g) })
	if want := []string{"假文", "文取", "取自", "自鲁", "鲁迅", "的"}; !slices.Equal(grams, want) {
		t.Errorf("CJKBigrams = %q, want %q", grams, want)
	}
}

// The bigram index follows every change of the units table through its triggers, finds a two-character word inside
// a longer run (which the trigram index cannot), and Check and RebuildFTS keep it whole.
func TestBigramIndexFollowsUnits(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	c, _ := k.Docs.CreateCollection(ctx, Collection{Name: "zh"})
	d, _, err := k.Docs.AddDocument(ctx, Document{CollectionID: c.ID, SHA256: "z", Name: "z.pdf", Kind: "pdf", Pages: 3})
	if err != nil {
		t.Fatal(err)
	}
	put := func(ord int, text string) int64 {
		return addUnit(t, k, Unit{DocumentID: d.ID, Ordinal: ord, Kind: UnitPage, Text: text})
	}
	p1 := put(1, "鲁迅《祝福》是其中一种假文")
	p2 := put(2, "English only, about 鲁 nothing")
	p3 := put(3, "无意义随机假文")
	all := Scope{Collections: map[int64]bool{c.ID: true}}
	find := func(match string) []int64 {
		t.Helper()
		r, err := k.Search.RankFTSBigram(ctx, match, all, 10)
		if err != nil {
			t.Fatal(err)
		}
		return r.IDs
	}
	if got := find(`"鲁迅"`); !slices.Equal(got, []int64{p1}) {
		t.Errorf("鲁迅: %v, want [%d]", got, p1)
	}
	if got := find(`"假文"`); len(got) != 2 {
		t.Errorf("假文: %v, want 2 units", got)
	}
	if got := find(`"english"`); len(got) != 1 || got[0] != p2 {
		t.Errorf("a word of a unit holding CJK: %v", got)
	}
	// A text change moves the unit's tokens; a deletion removes them.
	put(1, "另一段文字")
	if got := find(`"鲁迅"`); len(got) != 0 {
		t.Errorf("after the text change 鲁迅 still finds %v", got)
	}
	if got := find(`"文字"`); !slices.Equal(got, []int64{p1}) {
		t.Errorf("after the text change 文字 finds %v", got)
	}
	put(3, "now English only")
	if got := find(`"随机"`); len(got) != 0 {
		t.Errorf("a unit that lost its CJK text is still found: %v (p3 %d)", got, p3)
	}
	problems, err := k.Integrity(ctx)
	if err != nil || len(problems) != 0 {
		t.Fatalf("Integrity: %v %v", problems, err)
	}
	// Damage the index (a row for a unit without CJK text): Check says so and RebuildFTS repairs it.
	if _, err := k.db.ExecContext(ctx, `INSERT INTO units_fts_bigram(rowid, text) VALUES (?, 'stray')`, p3); err != nil {
		t.Fatal(err)
	}
	if problems, _ := k.Integrity(ctx); len(problems) != 1 || !strings.Contains(problems[0], "units_fts_bigram") {
		t.Errorf("Integrity after damage: %v", problems)
	}
	if err := k.RebuildFTS(ctx); err != nil {
		t.Fatal(err)
	}
	if problems, err := k.Integrity(ctx); err != nil || len(problems) != 0 {
		t.Errorf("Integrity after RebuildFTS: %v %v", problems, err)
	}
	if got := find(`"stray"`); len(got) != 0 {
		t.Errorf("RebuildFTS kept a stray row: %v", got)
	}
	if err := k.Docs.DeleteDocument(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := k.db.QueryRow(`SELECT count(*) FROM units_fts_bigram`).Scan(&n); err != nil || n != 0 {
		t.Errorf("rows left after deleting the document: %d %v", n, err)
	}
}
