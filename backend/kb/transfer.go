package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file moves collections between libraries (backend/archive): a read of chosen collections, table by table, in
// one snapshot, and an import that writes them into another library in one transaction, with every id remapped.

// ColumnKind is how a transferred column's values are typed.
type ColumnKind int

// The column kinds of a transferred row.
const (
	ColInt        ColumnKind = iota // int64
	ColNullInt                      // int64 or nil (a reference that may be NULL)
	ColReal                         // float64
	ColText                         // string
	ColBlob                         // []byte
	ColTextOrBlob                   // string or []byte, as stored (units.words: JSON from old versions, binary since)
)

// TransferColumn is one column of a transferred table; Blob marks a column that names a blob by its hash.
type TransferColumn struct {
	Name string
	Kind ColumnKind
	Blob bool
}

// TransferTable is one table as it is transferred: its columns, in the order its rows are read and written.
type TransferTable struct {
	Name    string
	Columns []TransferColumn
}

// Row is one transferred row: one value per column of its table, typed by ColumnKind.
type Row []any

func cols(spec string) []TransferColumn {
	var out []TransferColumn
	for _, f := range strings.Fields(spec) {
		name, kind, _ := strings.Cut(f, ":")
		c := TransferColumn{Name: name}
		if strings.HasSuffix(kind, "#") {
			c.Blob, kind = true, strings.TrimSuffix(kind, "#")
		}
		switch kind {
		case "i":
			c.Kind = ColInt
		case "ni":
			c.Kind = ColNullInt
		case "r":
			c.Kind = ColReal
		case "t":
			c.Kind = ColText
		case "b":
			c.Kind = ColBlob
		case "tb":
			c.Kind = ColTextOrBlob
		default:
			panic("kb: transfer column kind " + f)
		}
		out = append(out, c)
	}
	return out
}

// TransferTables are the tables a library archive holds, parents before the rows that refer to them: the order an
// import needs. Version 1 of the archive format is exactly these columns; a later version may add some.
var TransferTables = []TransferTable{
	{"collections", cols("id:i name:t text_embedder:t text_dim:i image_embedder:t image_dim:i created_at:i")},
	{"documents", cols("id:i collection_id:i sha256:t name:t source_path:t kind:t mime:t size_bytes:i blob:t# " +
		"status:t error:t pages:i duration_ms:i meta:t created_at:i updated_at:i")},
	{"document_facets", cols("document_id:i name:t source:t value:t norm:t")},
	{"document_links", cols("parent_id:i child_id:i kind:t name:t")},
	{"units", cols("id:i document_id:i ordinal:i kind:t width:r height:r t_start_ms:i t_end_ms:i text:t text_source:t " +
		"words:tb thumb_blob:t# image_blob:t# cjk:i")},
	{"frames", cols("id:i unit_id:i t_ms:i blob:t# text:t")},
	{"vectors", cols("unit_id:i embedder:t modality:t dim:i vec:b")},
	{"passages", cols("id:i unit_id:i embedder:t ordinal:i start:i end:i dim:i vec:b")},
	{"ingest_steps", cols("document_id:i ordinal:i stage:t status:t error:t updated_at:i")},
	{"conversations", cols("id:i title:t collection_id:ni created_at:i updated_at:i")},
	{"runs", cols("id:i conversation_id:ni question:t mode:t provider:t model:t status:t answer:t usage:t " +
		"started_at:i finished_at:i")},
	{"messages", cols("id:i conversation_id:i role:t content:t run_id:ni created_at:i")},
	{"run_events", cols("run_id:i seq:i type:t data:t")},
	{"run_blobs", cols("run_id:i hash:t#")},
	{"graph_nodes", cols("run_id:i node_id:t parents:t query:t summary:t items:t")},
}

// TransferTableNamed returns the transferred table called name.
func TransferTableNamed(name string) (TransferTable, bool) {
	for _, t := range TransferTables {
		if t.Name == name {
			return t, true
		}
	}
	return TransferTable{}, false
}

// ExportScope chooses what an export reads: the collections by id, or every collection (All), which also takes the
// runs and conversations that belong to no collection.
type ExportScope struct {
	Collections []int64
	All         bool
}

// ExportSink receives an export: each table begun, then its rows.
type ExportSink interface {
	BeginTable(ctx context.Context, t TransferTable) error
	Row(ctx context.Context, r Row) error
}

// exportWhere returns each table's WHERE clause for the scope; ids are integers, formatted, never user text.
func exportWhere(s ExportScope) map[string]string {
	ids := make([]string, len(s.Collections))
	for i, id := range s.Collections {
		ids[i] = strconv.FormatInt(id, 10)
	}
	in := "(" + strings.Join(ids, ",") + ")"
	if len(ids) == 0 {
		in = "(NULL)"
	}
	cols := "id IN " + in
	convs := "collection_id IN " + in
	if s.All {
		cols, convs = "1", "1"
	}
	docs := "collection_id IN (SELECT id FROM collections WHERE " + cols + ") AND status = 'ready' " +
		"AND id NOT IN (SELECT document_id FROM document_deletions)"
	units := "document_id IN (SELECT id FROM documents WHERE " + docs + ")"
	// A run belongs to the collection its run_started event names (a run over every collection goes only with
	// All), or to that of its conversation; a conversation to its collection or to that of one of its runs.
	runs := "(conversation_id IN (SELECT id FROM conversations WHERE " + convs + ") OR id IN (SELECT run_id FROM run_events " +
		"WHERE type = 'run_started' AND json_valid(data) AND json_extract(data, '$.run.collection') IN " +
		"(SELECT name FROM collections WHERE " + cols + ")))"
	if s.All {
		runs = "1"
	} else {
		convs = "(" + convs + " OR id IN (SELECT conversation_id FROM runs WHERE " + runs + "))"
	}
	convSel := "SELECT id FROM conversations WHERE " + convs
	byUnit := "unit_id IN (SELECT id FROM units WHERE " + units + ")"
	byRun := "run_id IN (SELECT id FROM runs WHERE " + runs + ")"
	return map[string]string{
		"collections":     cols,
		"documents":       docs,
		"document_facets": "document_id IN (SELECT id FROM documents WHERE " + docs + ")",
		// A link goes when both its documents do (an attachment whose message stays behind loses the link).
		"document_links": "parent_id IN (SELECT id FROM documents WHERE " + docs + ") AND child_id IN (SELECT id FROM documents WHERE " + docs + ")",
		"units":          units,
		"frames":         byUnit,
		"vectors":        byUnit,
		"passages":       byUnit,
		"ingest_steps":   "document_id IN (SELECT id FROM documents WHERE " + docs + ")",
		"conversations":  convs,
		"runs":           runs,
		"messages":       "conversation_id IN (" + convSel + ")",
		"run_events":     byRun,
		"run_blobs":      byRun,
		"graph_nodes":    byRun,
	}
}

// Export reads the chosen collections, table by table in TransferTables' order, from one snapshot of the database
// (a read transaction on one connection: ingest may go on, the export sees one committed state), and hands every
// row to sink as it is read, so memory stays bounded by one row.
func (k *KB) Export(ctx context.Context, s ExportScope, sink ExportSink) error {
	conn, err := k.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("export: connection: %w", err)
	}
	defer conn.Close()
	// A deferred transaction: the pool's BEGIN IMMEDIATE would take the write lock for the whole export.
	if _, err := conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		return fmt.Errorf("export: begin: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	where := exportWhere(s)
	for _, t := range TransferTables {
		if err := sink.BeginTable(ctx, t); err != nil {
			return err
		}
		names := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			names[i] = c.Name
			if c.Name == "end" {
				names[i] = `"end"`
			}
		}
		// In id order; tables without rowid come in their primary key's order.
		q := "SELECT " + strings.Join(names, ", ") + " FROM " + t.Name + " WHERE (" + where[t.Name] + ")" + " ORDER BY rowid"
		if t.Name == "document_facets" || t.Name == "document_links" || t.Name == "vectors" || t.Name == "ingest_steps" || t.Name == "run_events" || t.Name == "run_blobs" {
			q = "SELECT " + strings.Join(names, ", ") + " FROM " + t.Name + " WHERE (" + where[t.Name] + ")"
		}
		err := eachRow(ctx, conn, "export "+t.Name, func(rows *sql.Rows) error {
			r, err := scanTransfer(rows, t)
			if err != nil {
				return err
			}
			return sink.Row(ctx, r)
		}, q)
		if err != nil {
			return err
		}
	}
	return nil
}

func scanTransfer(rows *sql.Rows, t TransferTable) (Row, error) {
	dst := make([]any, len(t.Columns))
	for i := range dst {
		dst[i] = new(any)
	}
	if err := rows.Scan(dst...); err != nil {
		return nil, err
	}
	r := make(Row, len(t.Columns))
	for i, c := range t.Columns {
		v := *(dst[i].(*any))
		switch c.Kind {
		case ColInt, ColNullInt:
			n, ok := v.(int64)
			if !ok && !(c.Kind == ColNullInt && v == nil) {
				return nil, fmt.Errorf("%s.%s: %T, want an integer", t.Name, c.Name, v)
			}
			if ok {
				r[i] = n
			}
		case ColReal:
			switch x := v.(type) {
			case float64:
				r[i] = x
			case int64:
				r[i] = float64(x)
			default:
				return nil, fmt.Errorf("%s.%s: %T, want a number", t.Name, c.Name, v)
			}
		case ColText:
			switch x := v.(type) {
			case string:
				r[i] = x
			case []byte:
				r[i] = string(x)
			default:
				return nil, fmt.Errorf("%s.%s: %T, want text", t.Name, c.Name, v)
			}
		case ColBlob:
			b, ok := v.([]byte)
			if !ok {
				return nil, fmt.Errorf("%s.%s: %T, want bytes", t.Name, c.Name, v)
			}
			r[i] = b
		case ColTextOrBlob:
			switch x := v.(type) {
			case string:
				r[i] = x
			case []byte:
				r[i] = append([]byte(nil), x...)
			default:
				return nil, fmt.Errorf("%s.%s: %T, want text or bytes", t.Name, c.Name, v)
			}
		}
	}
	return r, nil
}

// ImportOptions says where an import goes.
type ImportOptions struct {
	// Into, when set, is the one collection every imported collection goes into (made when absent); otherwise each
	// goes into the collection of its own name.
	Into string
	// HasBlob says whether the target's blob store holds a blob; every blob a row names must be there before the row
	// is written (the archive's blobs are stored first).
	HasBlob func(hash string) bool
}

// ImportCounts counts what an import wrote and what it found already there, by table.
type ImportCounts struct {
	Added    map[string]int64 `json:"added"`
	Existing map[string]int64 `json:"existing"`
}

// Import is an import in progress: one write transaction, so a failed or killed import leaves the library as it was.
// Put rows table by table in TransferTables' order, then Commit, or Rollback.
type Import struct {
	tx   *sql.Tx
	o    ImportOptions
	ids  map[string]map[int64]int64 // table → archive id → id in this library
	kept map[string]map[int64]bool  // table → archive ids of rows already present here, whose children are skipped
	n    ImportCounts
	// names maps each archive collection's name to the name of the collection here it went into.
	names map[string]string
	// stmts are the import's statements, prepared once each on its transaction.
	stmts map[string]*sql.Stmt
}

// BeginImport starts an import into this library.
func (k *KB) BeginImport(ctx context.Context, o ImportOptions) (*Import, error) {
	if o.HasBlob == nil {
		o.HasBlob = k.blobs.Has
	}
	tx, err := k.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("import: begin: %w", err)
	}
	im := &Import{tx: tx, o: o, ids: map[string]map[int64]int64{}, kept: map[string]map[int64]bool{}, stmts: map[string]*sql.Stmt{},
		names: map[string]string{},
		n:     ImportCounts{Added: map[string]int64{}, Existing: map[string]int64{}}}
	for _, t := range TransferTables {
		im.ids[t.Name] = map[int64]int64{}
		im.kept[t.Name] = map[int64]bool{}
	}
	return im, nil
}

// Rollback abandons the import: nothing it put is kept.
func (im *Import) Rollback() { _ = im.tx.Rollback() }

// Commit makes the import durable and returns its counts.
func (im *Import) Commit() (ImportCounts, error) {
	if err := im.tx.Commit(); err != nil {
		return ImportCounts{}, fmt.Errorf("import: commit: %w", err)
	}
	return im.n, nil
}

// ErrImportMismatch is wrapped by an import refused because an archive collection's embedders differ from those of
// the collection it would go into.
var ErrImportMismatch = errors.New("embedders differ")

// Put writes one row of table (or maps it onto the row already here), its references rewritten to this library's
// ids. A row that names an id the archive did not carry before it, or a blob that is not stored, is refused.
func (im *Import) Put(ctx context.Context, table string, r Row) error {
	t, ok := TransferTableNamed(table)
	if !ok {
		return fmt.Errorf("no table %q", table)
	}
	if len(r) != len(t.Columns) {
		return fmt.Errorf("%s: %d values, want %d", table, len(r), len(t.Columns))
	}
	v := map[string]any{}
	for i, c := range t.Columns {
		v[c.Name] = r[i]
		if c.Blob {
			h, _ := r[i].(string)
			if h == "" && table != "frames" && table != "run_blobs" {
				continue // no blob: a document or unit may have none, a frame or a run's blob must
			}
			if !ValidHash(h) {
				return fmt.Errorf("%s: %s %q is not a SHA-256 hash", table, c.Name, h)
			}
			if !im.o.HasBlob(h) {
				return fmt.Errorf("%s: %s %s is neither in the archive nor in this library", table, c.Name, h)
			}
		}
	}
	return im.put(ctx, t, v)
}

func (im *Import) ref(table string, id int64, what string) (int64, error) {
	n, ok := im.ids[table][id]
	if !ok {
		return 0, fmt.Errorf("%s %d is not in the archive before it", what, id)
	}
	return n, nil
}

func (im *Import) refNull(table string, id any, what string) (any, error) {
	if id == nil {
		return nil, nil
	}
	return im.ref(table, id.(int64), what)
}

func (im *Import) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := im.stmts[q]; ok {
		return st, nil
	}
	st, err := im.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	im.stmts[q] = st
	return st, nil
}

func (im *Import) exec(ctx context.Context, q string, args ...any) (int64, error) {
	st, err := im.stmt(ctx, q)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func (im *Import) lookup(ctx context.Context, q string, args ...any) (int64, bool, error) {
	st, err := im.stmt(ctx, q)
	if err != nil {
		return 0, false, err
	}
	var id int64
	err = st.QueryRowContext(ctx, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

func (im *Import) added(table string, oldID, newID int64) {
	im.ids[table][oldID] = newID
	im.n.Added[table]++
}

func (im *Import) existing(table string, oldID, newID int64) {
	im.ids[table][oldID] = newID
	im.kept[table][oldID] = true
	im.n.Existing[table]++
}

func (im *Import) put(ctx context.Context, t TransferTable, v map[string]any) error {
	i := func(name string) int64 { return v[name].(int64) }
	s := func(name string) string { return v[name].(string) }
	var err error
	switch t.Name {
	case "collections":
		name := s("name")
		if im.o.Into != "" {
			name = im.o.Into
		}
		im.names[s("name")] = name
		var te, ie string
		var td, idim int64
		var id int64
		err = im.tx.QueryRowContext(ctx, `SELECT id, text_embedder, text_dim, image_embedder, image_dim FROM collections
			WHERE name = ?`, name).Scan(&id, &te, &td, &ie, &idim)
		switch {
		case err == nil:
			if te != s("text_embedder") || td != i("text_dim") || ie != s("image_embedder") || idim != i("image_dim") {
				return fmt.Errorf("collection %q: %w: the archive's was embedded with %s (%d dimensions, images %q/%d), "+
					"this library's with %s (%d dimensions, images %q/%d); import it into a new collection (--into NAME)",
					name, ErrImportMismatch, s("text_embedder"), i("text_dim"), s("image_embedder"), i("image_dim"), te, td, ie, idim)
			}
			im.existing(t.Name, i("id"), id)
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("look up collection %q: %w", name, err)
		}
		id, err = im.exec(ctx, `INSERT INTO collections(name, text_embedder, text_dim, image_embedder, image_dim, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, name, s("text_embedder"), i("text_dim"), s("image_embedder"), i("image_dim"), i("created_at"))
		if err != nil {
			return fmt.Errorf("collection %q: %w", name, err)
		}
		im.added(t.Name, i("id"), id)
	case "documents":
		col, err := im.ref("collections", i("collection_id"), "collection")
		if err != nil {
			return fmt.Errorf("document %d: %w", i("id"), err)
		}
		if !ValidHash(s("sha256")) {
			return fmt.Errorf("document %d: sha256 %q is not a SHA-256 hash", i("id"), s("sha256"))
		}
		if !json.Valid([]byte(s("meta"))) {
			return fmt.Errorf("document %d: meta is not JSON", i("id"))
		}
		id, ok, err := im.lookup(ctx, `SELECT id FROM documents WHERE collection_id = ? AND sha256 = ?`, col, s("sha256"))
		if err != nil {
			return fmt.Errorf("document %d: %w", i("id"), err)
		}
		if ok {
			im.existing(t.Name, i("id"), id)
			return nil
		}
		id, err = im.exec(ctx, `INSERT INTO documents(collection_id, sha256, name, source_path, kind, mime, size_bytes, blob,
			status, error, pages, duration_ms, meta, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			col, s("sha256"), s("name"), s("source_path"), s("kind"), s("mime"), i("size_bytes"), s("blob"), s("status"),
			s("error"), i("pages"), i("duration_ms"), s("meta"), i("created_at"), i("updated_at"))
		if err != nil {
			return fmt.Errorf("document %d (%s): %w", i("id"), s("name"), err)
		}
		im.added(t.Name, i("id"), id)
	case "document_facets":
		doc, err := im.ref("documents", i("document_id"), "document")
		if err != nil || im.kept["documents"][i("document_id")] {
			return err
		}
		if _, err := im.exec(ctx, `INSERT INTO document_facets(document_id, name, source, value, norm) VALUES (?,?,?,?,?)`,
			doc, s("name"), s("source"), s("value"), s("norm")); err != nil {
			return fmt.Errorf("facet %s of document %d: %w", s("name"), i("document_id"), err)
		}
		im.n.Added[t.Name]++
	case "document_links":
		parent, err := im.ref("documents", i("parent_id"), "document")
		if err != nil {
			return fmt.Errorf("link of document %d: %w", i("child_id"), err)
		}
		child, err := im.ref("documents", i("child_id"), "document")
		if err != nil {
			return fmt.Errorf("link to document %d: %w", i("parent_id"), err)
		}
		// Both documents may be here already with their link: it is kept once.
		st, err := im.stmt(ctx, `INSERT INTO document_links(parent_id, child_id, kind, name) VALUES (?,?,?,?)
			ON CONFLICT(parent_id, child_id) DO NOTHING`)
		if err != nil {
			return err
		}
		res, err := st.ExecContext(ctx, parent, child, s("kind"), s("name"))
		if err != nil {
			return fmt.Errorf("link of document %d to %d: %w", i("child_id"), i("parent_id"), err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			im.n.Added[t.Name]++
		}
	case "units":
		old := i("document_id")
		doc, err := im.ref("documents", old, "document")
		if err != nil {
			return fmt.Errorf("unit %d: %w", i("id"), err)
		}
		if im.kept["documents"][old] {
			// The document is here already: its unit of the same ordinal stands for this one in runs' events.
			id, ok, err := im.lookup(ctx, `SELECT id FROM units WHERE document_id = ? AND ordinal = ?`, doc, i("ordinal"))
			if err != nil {
				return fmt.Errorf("unit %d: %w", i("id"), err)
			}
			if ok {
				im.existing(t.Name, i("id"), id)
			} else {
				im.kept[t.Name][i("id")] = true
			}
			return nil
		}
		id, err := im.exec(ctx, `INSERT INTO units(document_id, ordinal, kind, width, height, t_start_ms, t_end_ms, text,
			text_source, words, thumb_blob, image_blob, cjk) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			doc, i("ordinal"), s("kind"), v["width"], v["height"], i("t_start_ms"), i("t_end_ms"), s("text"),
			s("text_source"), v["words"], s("thumb_blob"), s("image_blob"), i("cjk"))
		if err != nil {
			return fmt.Errorf("unit %d (page %d of document %d): %w", i("id"), i("ordinal"), old, err)
		}
		im.added(t.Name, i("id"), id)
	case "frames", "vectors", "passages":
		old := i("unit_id")
		unit, err := im.ref("units", old, "unit")
		if im.kept["units"][old] {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s row: %w", t.Name, err)
		}
		var id int64
		switch t.Name {
		case "frames":
			id, err = im.exec(ctx, `INSERT INTO frames(unit_id, t_ms, blob, text) VALUES (?,?,?,?)`,
				unit, i("t_ms"), s("blob"), s("text"))
		case "vectors":
			_, err = im.exec(ctx, `INSERT INTO vectors(unit_id, embedder, modality, dim, vec) VALUES (?,?,?,?,?)`,
				unit, s("embedder"), s("modality"), i("dim"), v["vec"])
		case "passages":
			_, err = im.exec(ctx, `INSERT INTO passages(unit_id, embedder, ordinal, start, "end", dim, vec) VALUES (?,?,?,?,?,?,?)`,
				unit, s("embedder"), i("ordinal"), i("start"), i("end"), i("dim"), v["vec"])
		}
		if err != nil {
			return fmt.Errorf("%s row of unit %d: %w", t.Name, old, err)
		}
		im.n.Added[t.Name]++
		_ = id
	case "ingest_steps":
		old := i("document_id")
		doc, err := im.ref("documents", old, "document")
		if err != nil || im.kept["documents"][old] {
			return err
		}
		if _, err := im.exec(ctx, `INSERT INTO ingest_steps(document_id, ordinal, stage, status, error, updated_at)
			VALUES (?,?,?,?,?,?)`, doc, i("ordinal"), s("stage"), s("status"), s("error"), i("updated_at")); err != nil {
			return fmt.Errorf("ingest step of document %d: %w", old, err)
		}
		im.n.Added[t.Name]++
	case "conversations":
		col, err := im.refNull("collections", v["collection_id"], "collection")
		if err != nil {
			return fmt.Errorf("conversation %d: %w", i("id"), err)
		}
		id, ok, err := im.lookup(ctx, `SELECT id FROM conversations WHERE title = ? AND created_at = ? AND collection_id IS ?`,
			s("title"), i("created_at"), col)
		if err != nil {
			return fmt.Errorf("conversation %d: %w", i("id"), err)
		}
		if ok {
			im.existing(t.Name, i("id"), id)
			return nil
		}
		id, err = im.exec(ctx, `INSERT INTO conversations(title, collection_id, created_at, updated_at) VALUES (?,?,?,?)`,
			s("title"), col, i("created_at"), i("updated_at"))
		if err != nil {
			return fmt.Errorf("conversation %d: %w", i("id"), err)
		}
		im.added(t.Name, i("id"), id)
	case "runs":
		conv, err := im.refNull("conversations", v["conversation_id"], "conversation")
		if err != nil {
			return fmt.Errorf("run %d: %w", i("id"), err)
		}
		if !json.Valid([]byte(s("usage"))) {
			return fmt.Errorf("run %d: usage is not JSON", i("id"))
		}
		id, ok, err := im.lookup(ctx, `SELECT id FROM runs WHERE question = ? AND started_at = ? AND mode = ?
			AND conversation_id IS ?`, s("question"), i("started_at"), s("mode"), conv)
		if err != nil {
			return fmt.Errorf("run %d: %w", i("id"), err)
		}
		if ok {
			im.existing(t.Name, i("id"), id)
			return nil
		}
		id, err = im.exec(ctx, `INSERT INTO runs(conversation_id, question, mode, provider, model, status, answer, usage,
			started_at, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?)`, conv, s("question"), s("mode"), s("provider"),
			s("model"), s("status"), s("answer"), s("usage"), i("started_at"), i("finished_at"))
		if err != nil {
			return fmt.Errorf("run %d: %w", i("id"), err)
		}
		im.added(t.Name, i("id"), id)
	case "messages":
		old := i("conversation_id")
		conv, err := im.ref("conversations", old, "conversation")
		if err != nil {
			return fmt.Errorf("message %d: %w", i("id"), err)
		}
		if im.kept["conversations"][old] {
			im.n.Existing[t.Name]++
			return nil
		}
		var run any
		if r, ok := v["run_id"].(int64); ok {
			if n, ok := im.ids["runs"][r]; ok {
				run = n
			}
		}
		if _, err := im.exec(ctx, `INSERT INTO messages(conversation_id, role, content, run_id, created_at) VALUES (?,?,?,?,?)`,
			conv, s("role"), s("content"), run, i("created_at")); err != nil {
			return fmt.Errorf("message %d: %w", i("id"), err)
		}
		im.n.Added[t.Name]++
	case "run_events", "run_blobs", "graph_nodes":
		old := i("run_id")
		run, err := im.ref("runs", old, "run")
		if err != nil {
			return fmt.Errorf("%s row: %w", t.Name, err)
		}
		if im.kept["runs"][old] {
			im.n.Existing[t.Name]++
			return nil
		}
		switch t.Name {
		case "run_events":
			data, err := im.remapJSON(s("data"))
			if err != nil {
				return fmt.Errorf("event %d of run %d: %w", i("seq"), old, err)
			}
			_, err = im.exec(ctx, `INSERT INTO run_events(run_id, seq, type, data) VALUES (?,?,?,?)`, run, i("seq"), s("type"), data)
			if err != nil {
				return fmt.Errorf("event %d of run %d: %w", i("seq"), old, err)
			}
		case "run_blobs":
			if _, err := im.exec(ctx, `INSERT OR IGNORE INTO run_blobs(run_id, hash) VALUES (?,?)`, run, s("hash")); err != nil {
				return fmt.Errorf("blob of run %d: %w", old, err)
			}
		case "graph_nodes":
			items, err := im.remapJSON(s("items"))
			if err != nil {
				return fmt.Errorf("graph node %s of run %d: %w", s("node_id"), old, err)
			}
			if !json.Valid([]byte(s("parents"))) {
				return fmt.Errorf("graph node %s of run %d: parents are not JSON", s("node_id"), old)
			}
			if _, err := im.exec(ctx, `INSERT INTO graph_nodes(run_id, node_id, parents, query, summary, items)
				VALUES (?,?,?,?,?,?)`, run, s("node_id"), s("parents"), s("query"), s("summary"), items); err != nil {
				return fmt.Errorf("graph node %s of run %d: %w", s("node_id"), old, err)
			}
		}
		im.n.Added[t.Name]++
	}
	return nil
}

// idKeys are the JSON keys of a stored event or graph node that hold a row's id, and the table each refers to.
var idKeys = map[string]string{"unit_id": "units", "document_id": "documents", "run_id": "runs",
	"conversation_id": "conversations"}

// remapJSON rewrites the ids a stored event names to this library's: an id the archive did not carry (a page of a
// collection that was not exported) becomes empty rather than point at another library's row. A collection the
// import renamed (ImportOptions.Into) is renamed in the events too, so the run still belongs to it.
func (im *Import) remapJSON(data string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return "", errors.New("not one JSON value")
	}
	changed := false
	var walk func(x any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if c, ok := e.(string); ok && k == "collection" && im.names[c] != "" && im.names[c] != c {
					x[k], changed = im.names[c], true // a run's collection, imported under another name
					continue
				}
				table, isID := idKeys[k]
				if !isID {
					x[k] = walk(e)
					continue
				}
				switch id := e.(type) {
				case string:
					if n, err := strconv.ParseInt(id, 10, 64); err == nil {
						changed = true
						if m, ok := im.ids[table][n]; ok {
							x[k] = strconv.FormatInt(m, 10)
						} else {
							x[k] = ""
						}
					}
				case json.Number:
					if n, err := id.Int64(); err == nil {
						changed = true
						x[k] = json.Number(strconv.FormatInt(im.ids[table][n], 10))
					}
				}
			}
			return x
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
			return x
		}
		return x
	}
	v = walk(v)
	if !changed {
		return data, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
