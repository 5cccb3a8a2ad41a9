package kb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Unit kinds and text sources.
const (
	UnitPage  = "page"
	UnitImage = "image"
	UnitClip  = "clip"

	TextNone       = "none"
	TextLayer      = "layer"
	TextOCR        = "ocr"
	TextTranscript = "transcript"
	TextMixed      = "mixed"
)

// Word is one word of a unit's text with its box in unit pixels (page pixels at 72 dpi for PDF pages, i.e. points;
// image pixels for images and frames).
type Word struct {
	Text string  `json:"t"`
	X0   float64 `json:"x0"`
	Y0   float64 `json:"y0"`
	X1   float64 `json:"x1"`
	Y1   float64 `json:"y1"`
}

// Unit is the retrieval unit: a PDF page, an image, or a video clip.
type Unit struct {
	ID         int64   `json:"id"`
	DocumentID int64   `json:"document_id"`
	Ordinal    int     `json:"ordinal"` // 1-based page or clip number
	Kind       string  `json:"kind"`
	Width      float64 `json:"width"`  // points for PDF pages, pixels for images and clips
	Height     float64 `json:"height"` //
	TStartMS   int64   `json:"t_start_ms,omitempty"`
	TEndMS     int64   `json:"t_end_ms,omitempty"`
	Text       string  `json:"text"`
	TextSource string  `json:"text_source"`
	Words      []Word  `json:"words,omitempty"`
	ThumbBlob  string  `json:"thumb_blob,omitempty"`
	ImageBlob  string  `json:"image_blob,omitempty"` // normalised image (images) or representative frame (clips)
	// EncodedWords, when Words is empty, is stored as the unit's word boxes: their stored form from EncodeWords,
	// for a writer that never holds them as Words. Reads fill Words, never this.
	EncodedWords []byte `json:"-"`
}

// Frame is a keyframe of a video clip.
type Frame struct {
	TMS  int64  `json:"t_ms"`
	Blob string `json:"blob"`
	Text string `json:"text,omitempty"`
}

// PutUnit inserts or replaces the unit with the same (document, ordinal) and returns its id. Replacing keeps the id,
// so vectors and steps that refer to it stay attached.
func (k *Content) PutUnit(ctx context.Context, u Unit) (int64, error) {
	ids, err := putUnits(ctx, k.db, []Unit{u})
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// unitsPerInsert bounds the rows of one INSERT (13 bound values each, far below SQLite's limit); ingest's batches
// of 32 pages take one statement.
const unitsPerInsert = 64

// putUnits stores units as PutUnit does, in order, with a few multi-row INSERT statements (rowChunks). In a
// transaction each statement that fires the full-text triggers opens a savepoint, at which FTS5 writes what it has
// gathered as a new segment: a statement per unit wrote a segment per page, and merging them was a fifth of the
// storing process's database work.
func putUnits(ctx context.Context, db execer, units []Unit) ([]int64, error) {
	ids := make([]int64, 0, len(units))
	for start, size := range rowChunks(len(units), unitsPerInsert) {
		part := units[start : start+size]
		got, err := insertUnits(ctx, db, part)
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
	}
	return ids, nil
}

func insertUnits(ctx context.Context, db execer, units []Unit) ([]int64, error) {
	const cols = 13
	args := make([]any, 0, cols*len(units))
	for _, u := range units {
		if u.Ordinal < 1 {
			return nil, fmt.Errorf("unit of document %d: ordinal %d is not 1-based", u.DocumentID, u.Ordinal)
		}
		if u.TextSource == "" {
			u.TextSource = TextNone
		}
		var words any = "[]"
		if len(u.Words) > 0 {
			b, err := encodeWordsBinary(u.Words)
			if err != nil {
				return nil, fmt.Errorf("store unit %d of document %d: %w", u.Ordinal, u.DocumentID, err)
			}
			words = b
		} else if len(u.EncodedWords) > 0 {
			if len(u.EncodedWords) < 3 || u.EncodedWords[0] != wordsMagic {
				return nil, fmt.Errorf("store unit %d of document %d: encoded word boxes are not their stored form", u.Ordinal, u.DocumentID)
			}
			words = u.EncodedWords
		}
		args = append(args, u.DocumentID, u.Ordinal, u.Kind, u.Width, u.Height, u.TStartMS, u.TEndMS, u.Text, u.TextSource,
			words, u.ThumbBlob, u.ImageBlob, hasCJK(u.Text))
	}
	row := "(?" + strings.Repeat(",?", cols-1) + ")"
	// RETURNING gives rows in no promised order: ids are matched to units by (document, ordinal). Ids are
	// assigned in row order, as separate statements would assign them.
	rows, err := db.QueryContext(ctx, `INSERT INTO units(document_id, ordinal, kind, width, height, t_start_ms, t_end_ms, text,
		text_source, words, thumb_blob, image_blob, cjk) VALUES `+row+strings.Repeat(","+row, len(units)-1)+`
		ON CONFLICT(document_id, ordinal) DO UPDATE SET kind=excluded.kind, width=excluded.width, height=excluded.height,
		t_start_ms=excluded.t_start_ms, t_end_ms=excluded.t_end_ms, text=excluded.text, text_source=excluded.text_source,
		words=excluded.words, thumb_blob=excluded.thumb_blob, image_blob=excluded.image_blob, cjk=excluded.cjk
		RETURNING id, document_id, ordinal`, args...)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", unitsName(units), err)
	}
	defer rows.Close()
	type key struct {
		doc int64
		ord int
	}
	byKey := make(map[key]int64, len(units))
	for rows.Next() {
		var id int64
		var k key
		if err := rows.Scan(&id, &k.doc, &k.ord); err != nil {
			return nil, fmt.Errorf("store %s: %w", unitsName(units), err)
		}
		byKey[k] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store %s: %w", unitsName(units), err)
	}
	ids := make([]int64, len(units))
	for i, u := range units {
		id, ok := byKey[key{u.DocumentID, u.Ordinal}]
		if !ok {
			return nil, fmt.Errorf("store unit %d of document %d: no id returned", u.Ordinal, u.DocumentID)
		}
		ids[i] = id
	}
	return ids, nil
}

// unitsName names a run of units in errors.
func unitsName(units []Unit) string {
	if len(units) == 1 {
		return fmt.Sprintf("unit %d of document %d", units[0].Ordinal, units[0].DocumentID)
	}
	return fmt.Sprintf("units %d-%d of document %d", units[0].Ordinal, units[len(units)-1].Ordinal, units[0].DocumentID)
}

const unitCols = `id, document_id, ordinal, kind, width, height, t_start_ms, t_end_ms, text, text_source, words, thumb_blob, image_blob`

func scanUnit(row rowScanner) (Unit, error) { return scanUnitWords(row, nil) }

// scanUnitWords is scanUnit keeping only the words keep accepts (all when keep is nil).
func scanUnitWords(row rowScanner, keep func(text string) bool) (Unit, error) {
	var u Unit
	var words string
	err := row.Scan(&u.ID, &u.DocumentID, &u.Ordinal, &u.Kind, &u.Width, &u.Height, &u.TStartMS, &u.TEndMS, &u.Text,
		&u.TextSource, &words, &u.ThumbBlob, &u.ImageBlob)
	if err != nil {
		return u, err
	}
	if u.Words, err = decodeWordsKeeping(words, keep); err != nil {
		return u, fmt.Errorf("unit %d: word boxes: %w", u.ID, err)
	}
	return u, nil
}

// Unit finds a unit by id.
func (k *Content) Unit(ctx context.Context, id int64) (Unit, error) {
	u, err := scanUnit(k.db.QueryRowContext(ctx, `SELECT `+unitCols+` FROM units WHERE id = ?`, id))
	return found(u, err, "unit %d", id)
}

// Units lists a document's units in order.
func (k *Content) Units(ctx context.Context, documentID int64) ([]Unit, error) {
	return queryAll(ctx, k.db, fmt.Sprintf("list units of document %d", documentID), scanUnit, `SELECT `+unitCols+` FROM units WHERE document_id = ? ORDER BY ordinal`, documentID)
}

// PutFrames replaces the keyframes of a clip unit.
func (k *Content) PutFrames(ctx context.Context, unitID int64, frames []Frame) error {
	return k.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM frames WHERE unit_id = ?`, unitID); err != nil {
			return err
		}
		for _, f := range frames {
			if _, err := tx.ExecContext(ctx, `INSERT INTO frames(unit_id, t_ms, blob, text) VALUES (?,?,?,?)`,
				unitID, f.TMS, f.Blob, f.Text); err != nil {
				return fmt.Errorf("store frame %d ms of unit %d: %w", f.TMS, unitID, err)
			}
		}
		return nil
	})
}

// Frames lists a clip's keyframes by time.
func (k *Content) Frames(ctx context.Context, unitID int64) ([]Frame, error) {
	return queryAll(ctx, k.db, "read frames", func(r rowScanner) (f Frame, err error) {
		err = r.Scan(&f.TMS, &f.Blob, &f.Text)
		return
	}, `SELECT t_ms, blob, text FROM frames WHERE unit_id = ? ORDER BY t_ms`, unitID)
}

// Modalities of vectors.
const (
	ModalityText  = "text"
	ModalityImage = "image"
)

// EncodeVector packs a vector as little-endian float32s, the BLOB format of the vectors table.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector unpacks a vector BLOB.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector blob of %d bytes is not a float32 array", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// PutVector stores a unit's vector from one embedder, replacing an earlier one.
func (k *Content) PutVector(ctx context.Context, unitID int64, embedder, modality string, v []float32) error {
	return putVector(ctx, k.db, unitID, embedder, modality, v)
}

func putVector(ctx context.Context, db execer, unitID int64, embedder, modality string, v []float32) error {
	if len(v) == 0 {
		return fmt.Errorf("vector of unit %d from %s is empty", unitID, embedder)
	}
	_, err := db.ExecContext(ctx, `INSERT INTO vectors(unit_id, embedder, modality, dim, vec) VALUES (?,?,?,?,?)
		ON CONFLICT(unit_id, embedder, modality) DO UPDATE SET dim=excluded.dim, vec=excluded.vec`,
		unitID, embedder, modality, len(v), EncodeVector(v))
	if err != nil {
		return fmt.Errorf("store vector of unit %d: %w", unitID, err)
	}
	return nil
}

// ScanVectors calls fn for every vector of the embedder and modality (all collections), in unit id order. Rows whose
// dimension differs from dim are skipped, so a stale embedder's leftovers never mix into an index.
func (k *Content) ScanVectors(ctx context.Context, embedder, modality string, dim int, fn func(unitID int64, v []float32) error) error {
	rows, err := k.db.QueryContext(ctx, `SELECT unit_id, vec FROM vectors WHERE embedder = ? AND modality = ? AND dim = ?
		ORDER BY unit_id`, embedder, modality, dim)
	if err != nil {
		return fmt.Errorf("scan vectors of %s: %w", embedder, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return err
		}
		v, err := DecodeVector(b)
		if err != nil {
			return fmt.Errorf("unit %d: %w", id, err)
		}
		if err := fn(id, v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Ingest step states.
const (
	StepDone    = "done"
	StepFailed  = "failed"
	StepSkipped = "skipped"
)

// Step is the recorded outcome of one ingest stage for one unit (ordinal 0 = the whole document).
type Step struct {
	Ordinal int    `json:"ordinal"`
	Stage   string `json:"stage"`
	Status  string `json:"status"`
	Error   string `json:"error,omitempty"`
}

// MarkStep records a stage outcome, so an interrupted ingest resumes where it stopped.
func (k *Content) MarkStep(ctx context.Context, documentID int64, s Step) error {
	return markSteps(ctx, k.db, documentID, []Step{s})
}

// stepsPerInsert bounds the rows of one INSERT into ingest_steps.
const stepsPerInsert = 64

func markSteps(ctx context.Context, db execer, documentID int64, steps []Step) error {
	t := now()
	for start, size := range rowChunks(len(steps), stepsPerInsert) {
		part := steps[start : start+size]
		args := make([]any, 0, 6*len(part))
		for _, s := range part {
			args = append(args, documentID, s.Ordinal, s.Stage, s.Status, s.Error, t)
		}
		_, err := db.ExecContext(ctx, `INSERT INTO ingest_steps(document_id, ordinal, stage, status, error, updated_at)
		VALUES (?,?,?,?,?,?)`+strings.Repeat(",(?,?,?,?,?,?)", len(part)-1)+` ON CONFLICT(document_id, ordinal, stage) DO UPDATE SET
		status=excluded.status, error=excluded.error, updated_at=excluded.updated_at`, args...)
		if err != nil {
			if len(part) == 1 {
				return fmt.Errorf("record step %s of document %d: %w", part[0].Stage, documentID, err)
			}
			return fmt.Errorf("record %d steps of document %d: %w", len(part), documentID, err)
		}
	}
	return nil
}

// Steps lists the recorded steps of a document.
func (k *Content) Steps(ctx context.Context, documentID int64) ([]Step, error) {
	return queryAll(ctx, k.db, "read steps", func(r rowScanner) (s Step, err error) {
		err = r.Scan(&s.Ordinal, &s.Stage, &s.Status, &s.Error)
		return
	}, `SELECT ordinal, stage, status, error FROM ingest_steps WHERE document_id = ?
		ORDER BY ordinal, stage`, documentID)
}

// UnitsByID returns the units with the given ids, a query per 500 ids; ids that do not exist are left out.
func (k *Content) UnitsByID(ctx context.Context, ids []int64) (map[int64]Unit, error) {
	return k.UnitsByIDKeeping(ctx, ids, nil)
}

// UnitsByIDKeeping is UnitsByID with only the words keep accepts in each unit's Words (in page order): search
// needs the boxes of a few matching words, and decoding every word's coordinates was most of a warm search.
func (k *Content) UnitsByIDKeeping(ctx context.Context, ids []int64, keep func(text string) bool) (map[int64]Unit, error) {
	const chunk = 500 // well under SQLite's bound-variable limit
	out := make(map[int64]Unit, len(ids))
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := k.db.QueryContext(ctx, `SELECT `+unitCols+` FROM units WHERE id IN (?`+strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("load %d units: %w", len(part), err)
		}
		for rows.Next() {
			u, err := scanUnitWords(rows, keep)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[u.ID] = u
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("load %d units: %w", len(part), err)
		}
	}
	return out, nil
}
