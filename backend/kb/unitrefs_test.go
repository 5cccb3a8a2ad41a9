package kb

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// TestUnitRefsLeaveWordsUnread checks the light readers against Units: the same units in the same order, less the
// text (and words) they promise to leave out; and, with one unit's word boxes made unreadable, that Units fails
// while they succeed — so they do not read the word boxes at all.
func TestUnitRefsLeaveWordsUnread(t *testing.T) {
	ctx := context.Background()
	k := openTest(t)
	d := addTestDocument(t, k, "ab", "d.pdf")
	empty := addTestDocument(t, k, "cd", "e.pdf") // no units yet
	// Stored out of order.
	for _, i := range []int{3, 1, 2} {
		_, err := k.Content.PutUnit(ctx, Unit{DocumentID: d.ID, Ordinal: i, Kind: UnitPage, Width: 612, Height: 792 + float64(i),
			Text: "page text " + string(rune('a'+i)), TextSource: "layer", ThumbBlob: "thumb" + string(rune('a'+i)),
			Words: []Word{{Text: "page", X0: 1, Y0: 2, X1: 3, Y1: 4}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	full, err := k.Content.Units(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := k.Content.UnitRefs(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []Unit
	if err := k.Content.EachUnitText(ctx, d.ID, func(u Unit) bool { texts = append(texts, u); return true }); err != nil {
		t.Fatal(err)
	}
	if len(full) != 3 || len(refs) != 3 || len(texts) != 3 {
		t.Fatalf("units %d, refs %d, texts %d; want 3 each", len(full), len(refs), len(texts))
	}
	for i, u := range full {
		want := u
		want.Text, want.Words = "", nil
		if !reflect.DeepEqual(refs[i], want) {
			t.Errorf("UnitRefs[%d] = %+v, want %+v", i, refs[i], want)
		}
		want.Text = u.Text
		if !reflect.DeepEqual(texts[i], want) {
			t.Errorf("EachUnitText[%d] = %+v, want %+v", i, texts[i], want)
		}
	}
	first, err := k.Content.FirstUnitRef(ctx, d.ID)
	if err != nil || first.Ordinal != 1 || first.ID != full[0].ID || first.ThumbBlob != full[0].ThumbBlob {
		t.Errorf("FirstUnitRef = %+v, %v; want unit %d", first, err, full[0].ID)
	}
	if _, err := k.Content.FirstUnitRef(ctx, empty.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("FirstUnitRef of a document without units: %v, want ErrNotFound", err)
	}
	n := 0
	if err := k.Content.EachUnitText(ctx, d.ID, func(Unit) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("EachUnitText stopped after %d units (%v), want 1", n, err)
	}

	if _, err := k.DB().ExecContext(ctx, `UPDATE units SET words = '[{"t":' WHERE document_id = ? AND ordinal = 2`, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Content.Units(ctx, d.ID); err == nil {
		t.Fatal("Units read unreadable word boxes without an error: the test no longer proves anything")
	}
	if r, err := k.Content.UnitRefs(ctx, d.ID); err != nil || len(r) != 3 {
		t.Errorf("UnitRefs with unreadable word boxes: %d units, %v", len(r), err)
	}
	if err := k.Content.EachUnitText(ctx, d.ID, func(Unit) bool { return true }); err != nil {
		t.Errorf("EachUnitText with unreadable word boxes: %v", err)
	}
}
