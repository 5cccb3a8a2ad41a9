package kb

import (
	"context"
	"fmt"
	"strings"
)

// Embedding is what the embed stage stores for one unit: its passages from the text embedder, which replace any it
// had (none replaces them with nothing), and its whole-text and image vectors when it has them (nil: none).
type Embedding struct {
	UnitID   int64
	Passages []Passage
	Text     []float32
	Image    []float32
}

// vectorsPerInsert bounds the rows of one INSERT into vectors (5 bound values each).
const vectorsPerInsert = 64

// PutEmbeddings stores many units' embeddings in a few statements: the rows that PutPassages, then PutVector for
// the text vector, then for the image vector, unit after unit, would store. A statement per unit and per chunk of
// passages was most of the embed stage's database work. Passage ids are the ones that sequence would give when no
// passage is replaced (every vector insert advances the id counter, so ids skip where the sequence inserted a
// vector); replaced passages all go first, so new ids then start after the counter they advanced, still never
// reused. A unit given twice ends as that sequence leaves it.
func (b *Batch) PutEmbeddings(ctx context.Context, textEmbedder, imageEmbedder string, es []Embedding) error {
	if len(es) == 0 {
		return nil
	}
	es = lastOfEachUnit(es)
	for _, e := range es {
		for _, p := range e.Passages {
			if len(p.Vec) == 0 {
				return fmt.Errorf("passage %d of unit %d from %s is empty", p.Ordinal, e.UnitID, textEmbedder)
			}
		}
		if e.Text != nil && len(e.Text) == 0 {
			return fmt.Errorf("vector of unit %d from %s is empty", e.UnitID, textEmbedder)
		}
		if e.Image != nil && len(e.Image) == 0 {
			return fmt.Errorf("vector of unit %d from %s is empty", e.UnitID, imageEmbedder)
		}
	}
	db := b.tx
	for start, size := range rowChunks(len(es), vectorsPerInsert) {
		part := es[start : start+size]
		args := make([]any, 0, 1+len(part))
		args = append(args, textEmbedder)
		for _, e := range part {
			args = append(args, e.UnitID)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM passages WHERE embedder = ? AND unit_id IN (?`+
			strings.Repeat(",?", len(part)-1)+`)`, args...); err != nil {
			return fmt.Errorf("replace passages of %s: %w", embeddingsName(part), err)
		}
	}
	type row struct {
		id   int64
		unit int64
		p    *Passage
	}
	var rows []row
	var next int64
	if err := db.QueryRowContext(ctx, `SELECT `+nextPassageID).Scan(&next); err != nil {
		return fmt.Errorf("store passages of %s: %w", embeddingsName(es), err)
	}
	var texts, images []Embedding
	for _, e := range es {
		for i := range e.Passages {
			rows = append(rows, row{next, e.UnitID, &e.Passages[i]})
			next++
		}
		if e.Text != nil {
			texts = append(texts, e)
			next++
		}
		if e.Image != nil {
			images = append(images, e)
			next++
		}
	}
	for start, size := range rowChunks(len(rows), passagesPerInsert) {
		part := rows[start : start+size]
		args := make([]any, 0, 8*len(part))
		for _, r := range part {
			args = append(args, r.id, r.unit, textEmbedder, r.p.Ordinal, r.p.Start, r.p.End, len(r.p.Vec), EncodeVector(r.p.Vec))
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO passages(id, unit_id, embedder, ordinal, start, end, dim, vec)
			VALUES (?,?,?,?,?,?,?,?)`+strings.Repeat(",(?,?,?,?,?,?,?,?)", len(part)-1), args...); err != nil {
			return fmt.Errorf("store passages of units %d-%d: %w", part[0].unit, part[len(part)-1].unit, err)
		}
	}
	if err := putVectors(ctx, db, textEmbedder, ModalityText, texts, func(e Embedding) []float32 { return e.Text }); err != nil {
		return err
	}
	return putVectors(ctx, db, imageEmbedder, ModalityImage, images, func(e Embedding) []float32 { return e.Image })
}

// lastOfEachUnit folds the embeddings given for the same unit into its last one, as storing them one after the
// other would leave them: the last one's passages, and the last vector of each kind given (vectors are replaced,
// never removed).
func lastOfEachUnit(es []Embedding) []Embedding {
	last := make(map[int64]int, len(es))
	for i, e := range es {
		last[e.UnitID] = i
	}
	if len(last) == len(es) {
		return es
	}
	merged := make(map[int64]Embedding, len(last))
	for _, e := range es {
		m, seen := merged[e.UnitID]
		if seen {
			if e.Text == nil {
				e.Text = m.Text
			}
			if e.Image == nil {
				e.Image = m.Image
			}
		}
		merged[e.UnitID] = e
	}
	out := make([]Embedding, 0, len(last))
	for i, e := range es {
		if last[e.UnitID] == i {
			out = append(out, merged[e.UnitID])
		}
	}
	return out
}

// putVectors is putVector for each unit, in a few statements.
func putVectors(ctx context.Context, db execer, embedder, modality string, es []Embedding, vec func(Embedding) []float32) error {
	for start, size := range rowChunks(len(es), vectorsPerInsert) {
		part := es[start : start+size]
		args := make([]any, 0, 5*len(part))
		for _, e := range part {
			v := vec(e)
			args = append(args, e.UnitID, embedder, modality, len(v), EncodeVector(v))
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO vectors(unit_id, embedder, modality, dim, vec) VALUES (?,?,?,?,?)`+
			strings.Repeat(",(?,?,?,?,?)", len(part)-1)+`
			ON CONFLICT(unit_id, embedder, modality) DO UPDATE SET dim=excluded.dim, vec=excluded.vec`, args...); err != nil {
			return fmt.Errorf("store %s vectors of %s: %w", modality, embeddingsName(part), err)
		}
	}
	return nil
}

// embeddingsName names a run of units in errors.
func embeddingsName(es []Embedding) string {
	if len(es) == 1 {
		return fmt.Sprintf("unit %d", es[0].UnitID)
	}
	return fmt.Sprintf("units %d-%d", es[0].UnitID, es[len(es)-1].UnitID)
}
