package kb

// migrations upgrade a database from user_version i to i+1 (index i). Never edit a released step; append one.
// A new database gets schema.sql instead; TestMigratedEqualsFresh checks that both end in the same schema.
var migrations = []string{
	// 1: documents, units with full-text indexes, vectors, blobs, ingest steps.
	`CREATE TABLE collections (
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
  text_embedder  TEXT NOT NULL,
  text_dim       INTEGER NOT NULL CHECK (text_dim > 0),
  image_embedder TEXT NOT NULL DEFAULT '',
  image_dim      INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL
);

CREATE TABLE documents (
  id            INTEGER PRIMARY KEY,
  collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  sha256        TEXT NOT NULL,
  name          TEXT NOT NULL,
  source_path   TEXT NOT NULL DEFAULT '',
  kind          TEXT NOT NULL CHECK (kind IN ('pdf', 'image', 'video')),
  mime          TEXT NOT NULL DEFAULT '',
  size_bytes    INTEGER NOT NULL DEFAULT 0,
  blob          TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'ingesting', 'ready', 'failed')),
  error         TEXT NOT NULL DEFAULT '',
  pages         INTEGER NOT NULL DEFAULT 0,
  duration_ms   INTEGER NOT NULL DEFAULT 0,
  meta          TEXT NOT NULL DEFAULT '{}',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (collection_id, sha256)
);

CREATE TABLE units (
  id          INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal     INTEGER NOT NULL CHECK (ordinal >= 1),
  kind        TEXT NOT NULL CHECK (kind IN ('page', 'image', 'clip')),
  width       REAL NOT NULL DEFAULT 0,
  height      REAL NOT NULL DEFAULT 0,
  t_start_ms  INTEGER NOT NULL DEFAULT 0,
  t_end_ms    INTEGER NOT NULL DEFAULT 0,
  text        TEXT NOT NULL DEFAULT '',
  text_source TEXT NOT NULL DEFAULT 'none' CHECK (text_source IN ('none', 'layer', 'ocr', 'transcript', 'mixed')),
  words       TEXT NOT NULL DEFAULT '[]',
  thumb_blob  TEXT NOT NULL DEFAULT '',
  image_blob  TEXT NOT NULL DEFAULT '',
  UNIQUE (document_id, ordinal)
);

CREATE TABLE frames (
  id         INTEGER PRIMARY KEY,
  unit_id    INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  t_ms       INTEGER NOT NULL,
  blob       TEXT NOT NULL,
  text       TEXT NOT NULL DEFAULT '',
  UNIQUE (unit_id, t_ms)
);

CREATE VIRTUAL TABLE units_fts USING fts5(text, content='units', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE units_fts_cjk USING fts5(text, content='units', content_rowid='id', tokenize='trigram');
CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER units_ad AFTER DELETE ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER units_au AFTER UPDATE OF text ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, new.text);
END;

CREATE TABLE vectors (
  unit_id  INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  embedder TEXT NOT NULL,
  modality TEXT NOT NULL CHECK (modality IN ('text', 'image')),
  dim      INTEGER NOT NULL CHECK (dim > 0),
  vec      BLOB NOT NULL CHECK (length(vec) = 4 * dim),
  PRIMARY KEY (unit_id, embedder, modality)
) WITHOUT ROWID;
CREATE INDEX vectors_embedder ON vectors(embedder, modality);

CREATE TABLE ingest_steps (
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal     INTEGER NOT NULL,
  stage       TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('done', 'failed', 'skipped')),
  error       TEXT NOT NULL DEFAULT '',
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (document_id, ordinal, stage)
) WITHOUT ROWID;`,
	// 2: conversations, agent runs with their event log and memory graph.
	`CREATE TABLE conversations (
  id            INTEGER PRIMARY KEY,
  title         TEXT NOT NULL DEFAULT '',
  collection_id INTEGER REFERENCES collections(id) ON DELETE SET NULL,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);

CREATE TABLE runs (
  id              INTEGER PRIMARY KEY,
  conversation_id INTEGER REFERENCES conversations(id) ON DELETE CASCADE,
  question        TEXT NOT NULL,
  mode            TEXT NOT NULL,
  provider        TEXT NOT NULL DEFAULT '',
  model           TEXT NOT NULL DEFAULT '',
  status          TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
  answer          TEXT NOT NULL DEFAULT '',
  usage           TEXT NOT NULL DEFAULT '{}',
  started_at      INTEGER NOT NULL,
  finished_at     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE messages (
  id              INTEGER PRIMARY KEY,
  conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  role            TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  content         TEXT NOT NULL,
  run_id          INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  created_at      INTEGER NOT NULL
);
CREATE INDEX messages_conversation ON messages(conversation_id, id);

CREATE TABLE run_events (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq    INTEGER NOT NULL,
  type   TEXT NOT NULL,
  data   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE run_blobs (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  hash   TEXT NOT NULL,
  PRIMARY KEY (run_id, hash)
) WITHOUT ROWID;

CREATE TABLE graph_nodes (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  node_id TEXT NOT NULL,
  parents TEXT NOT NULL DEFAULT '[]',
  query   TEXT NOT NULL DEFAULT '',
  summary TEXT NOT NULL DEFAULT '',
  items   TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (run_id, node_id)
);`,
	// 3: the library view filters documents by status.
	`CREATE INDEX documents_status ON documents(status);`,
	// 4: passage vectors (overlapping windows of a unit's text, so a page is found by its best-matching part) and a
	// generation counter that every change to vectors or passages bumps, so a stale on-disk index is detected even
	// when a vector is replaced in place.
	`CREATE TABLE passages (
  id       INTEGER PRIMARY KEY,
  unit_id  INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  embedder TEXT NOT NULL,
  ordinal  INTEGER NOT NULL CHECK (ordinal >= 0),
  start    INTEGER NOT NULL,
  end      INTEGER NOT NULL,
  dim      INTEGER NOT NULL CHECK (dim > 0),
  vec      BLOB NOT NULL CHECK (length(vec) = 4 * dim),
  UNIQUE (unit_id, embedder, ordinal)
);
CREATE INDEX passages_embedder ON passages(embedder, dim);

CREATE TABLE counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
INSERT INTO counters(name, value) VALUES ('vectors', 0);
CREATE TRIGGER vectors_gen_ai AFTER INSERT ON vectors BEGIN
  UPDATE counters SET value = value + 1 WHERE name = 'vectors';
END;
CREATE TRIGGER vectors_gen_au AFTER UPDATE ON vectors BEGIN
  UPDATE counters SET value = value + 1 WHERE name = 'vectors';
END;
CREATE TRIGGER vectors_gen_ad AFTER DELETE ON vectors BEGIN
  UPDATE counters SET value = value + 1 WHERE name = 'vectors';
END;
CREATE TRIGGER passages_gen_ai AFTER INSERT ON passages BEGIN
  UPDATE counters SET value = value + 1 WHERE name = 'vectors';
END;
CREATE TRIGGER passages_gen_au AFTER UPDATE ON passages BEGIN
  UPDATE counters SET value = value + 1 WHERE name = 'vectors';
END;
CREATE TRIGGER passages_gen_ad AFTER DELETE ON passages BEGIN
  UPDATE counters SET value = value + 1 WHERE name = 'vectors';
END;`,
	// 5: the word index stems English (porter over unicode61), so "degrees" finds "degree". FTS5 cannot change a
	// tokenizer in place: the table and the triggers that write to it are recreated, and the index is rebuilt from
	// units. The CJK trigram index is unchanged.
	`DROP TRIGGER units_ai;
DROP TRIGGER units_ad;
DROP TRIGGER units_au;
DROP TABLE units_fts;
CREATE VIRTUAL TABLE units_fts USING fts5(text, content='units', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER units_ad AFTER DELETE ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER units_au AFTER UPDATE OF text ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, new.text);
END;
INSERT INTO units_fts(units_fts) VALUES ('rebuild');`,
	// 6: the trigram index holds CJK text only (through the units_cjk view): English pages cost it four times the
	// word index on every insert and no CJK query can match them.
	`DROP TRIGGER units_ai;
DROP TRIGGER units_ad;
DROP TRIGGER units_au;
DROP TABLE units_fts_cjk;
-- CJK text only: the trigram index serves CJK queries, and English pages would cost it ~4x the word index.
CREATE VIEW units_cjk(id, text) AS SELECT id, CASE WHEN units.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN units.text ELSE '' END FROM units;
CREATE VIRTUAL TABLE units_fts_cjk USING fts5(text, content='units_cjk', content_rowid='id', tokenize='trigram');
CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, CASE WHEN new.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN new.text ELSE '' END);
END;
CREATE TRIGGER units_ad AFTER DELETE ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, CASE WHEN old.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN old.text ELSE '' END);
END;
CREATE TRIGGER units_au AFTER UPDATE OF text ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, CASE WHEN old.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN old.text ELSE '' END);
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, CASE WHEN new.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN new.text ELSE '' END);
END;
INSERT INTO units_fts_cjk(units_fts_cjk) VALUES ('rebuild');`,
	// 7: document and unit ids are never reused (AUTOINCREMENT): a page file, a cached render or a client's saved id
	// for a deleted document must never name a later one. SQLite cannot add AUTOINCREMENT in place, so both tables
	// are rebuilt with the same ids (migrate runs this with foreign keys off; legacy_alter_table keeps the children's
	// REFERENCES clauses naming documents and units while the old tables are renamed away). Ids deleted before this
	// migration above the highest surviving one may still be handed out once.
	`PRAGMA legacy_alter_table = ON;
DROP VIEW units_cjk;
ALTER TABLE documents RENAME TO documents_old;
ALTER TABLE units RENAME TO units_old;
DROP INDEX documents_status;
CREATE TABLE documents (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  sha256        TEXT NOT NULL,
  name          TEXT NOT NULL,
  source_path   TEXT NOT NULL DEFAULT '',
  kind          TEXT NOT NULL CHECK (kind IN ('pdf', 'image', 'video')),
  mime          TEXT NOT NULL DEFAULT '',
  size_bytes    INTEGER NOT NULL DEFAULT 0,
  blob          TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'ingesting', 'ready', 'failed')),
  error         TEXT NOT NULL DEFAULT '',
  pages         INTEGER NOT NULL DEFAULT 0,
  duration_ms   INTEGER NOT NULL DEFAULT 0,
  meta          TEXT NOT NULL DEFAULT '{}',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (collection_id, sha256)
);
INSERT INTO documents SELECT * FROM documents_old;
CREATE INDEX documents_status ON documents(status);
CREATE TABLE units (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal     INTEGER NOT NULL CHECK (ordinal >= 1),
  kind        TEXT NOT NULL CHECK (kind IN ('page', 'image', 'clip')),
  width       REAL NOT NULL DEFAULT 0,
  height      REAL NOT NULL DEFAULT 0,
  t_start_ms  INTEGER NOT NULL DEFAULT 0,
  t_end_ms    INTEGER NOT NULL DEFAULT 0,
  text        TEXT NOT NULL DEFAULT '',
  text_source TEXT NOT NULL DEFAULT 'none' CHECK (text_source IN ('none', 'layer', 'ocr', 'transcript', 'mixed')),
  words       TEXT NOT NULL DEFAULT '[]',
  thumb_blob  TEXT NOT NULL DEFAULT '',
  image_blob  TEXT NOT NULL DEFAULT '',
  UNIQUE (document_id, ordinal)
);
INSERT INTO units SELECT * FROM units_old;
DROP TABLE units_old;
DROP TABLE documents_old;
CREATE VIEW units_cjk(id, text) AS SELECT id, CASE WHEN units.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN units.text ELSE '' END FROM units;
CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, CASE WHEN new.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN new.text ELSE '' END);
END;
CREATE TRIGGER units_ad AFTER DELETE ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, CASE WHEN old.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN old.text ELSE '' END);
END;
CREATE TRIGGER units_au AFTER UPDATE OF text ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, CASE WHEN old.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN old.text ELSE '' END);
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, CASE WHEN new.text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*' THEN new.text ELSE '' END);
END;
PRAGMA legacy_alter_table = OFF;`,
	// 8: watched folders and the files seen in them (size, mtime, content, document), so a restart knows what
	// changed while Proofglass was not running; owned marks the file whose ingest created the document.
	`CREATE TABLE watch_folders (
  id            INTEGER PRIMARY KEY,
  collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  path          TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  scanned_at    INTEGER NOT NULL DEFAULT 0,
  error         TEXT NOT NULL DEFAULT '',
  UNIQUE (collection_id, path)
);
CREATE TABLE watch_files (
  folder_id   INTEGER NOT NULL REFERENCES watch_folders(id) ON DELETE CASCADE,
  rel         TEXT NOT NULL,
  size        INTEGER NOT NULL,
  mtime_ns    INTEGER NOT NULL,
  sha256      TEXT NOT NULL DEFAULT '',
  document_id INTEGER REFERENCES documents(id) ON DELETE SET NULL,
  owned       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (folder_id, rel)
) WITHOUT ROWID;
CREATE INDEX watch_files_document ON watch_files(document_id);`,
	// 9: answer evaluations: one row per `proofglass eval answers`, one item per question × mode × sample, each linked
	// to its stored run, so an interrupted evaluation resumes where it stopped.
	`CREATE TABLE evaluations (
  id          INTEGER PRIMARY KEY,
  dataset     TEXT NOT NULL,
  collection  TEXT NOT NULL,
  config_key  TEXT NOT NULL,
  config      TEXT NOT NULL DEFAULT '{}',
  status      TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX evaluations_key ON evaluations(config_key, status);

CREATE TABLE evaluation_items (
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  question_id   TEXT NOT NULL,
  mode          TEXT NOT NULL,
  sample        INTEGER NOT NULL,
  run_id        INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  result        TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  PRIMARY KEY (evaluation_id, question_id, mode, sample)
) WITHOUT ROWID;`,
	// 10: a log of unit text changes (insert, delete, text update), so an in-memory word index built at change seq
	// S learns exactly which units changed since and need not be rebuilt (backend/kb/lexical).
	`CREATE TABLE unit_changes (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  unit_id INTEGER NOT NULL
);
CREATE TRIGGER unit_changes_ai AFTER INSERT ON units BEGIN INSERT INTO unit_changes(unit_id) VALUES (new.id); END;
CREATE TRIGGER unit_changes_ad AFTER DELETE ON units BEGIN INSERT INTO unit_changes(unit_id) VALUES (old.id); END;
CREATE TRIGGER unit_changes_au AFTER UPDATE OF text ON units BEGIN INSERT INTO unit_changes(unit_id) VALUES (new.id); END;`,
	// 11: units.cjk says whether a unit's text holds CJK characters, so that the trigram index's view and triggers
	// no longer scan every text with GLOB (a seventh of the storing process's CPU on English pages). The writer sets
	// it (kb.hasCJK, the same test as the GLOB); existing rows get it from the GLOB once, so the trigram index keeps
	// exactly the texts it holds. The triggers fire on a change of either column, so index and view never disagree.
	`DROP TRIGGER units_ai;
DROP TRIGGER units_ad;
DROP TRIGGER units_au;
DROP VIEW units_cjk;
ALTER TABLE units ADD COLUMN cjk INTEGER NOT NULL DEFAULT 0;
UPDATE units SET cjk = 1 WHERE text GLOB '*[ᄀ-ᇿ⺀-⿟々〇〡-〩〸-〻぀-ヿㄱ-ㆎ㐀-䶿一-鿿가-힯豈-﫿𠀀-𯨟]*';
CREATE VIEW units_cjk(id, text) AS SELECT id, CASE WHEN units.cjk THEN units.text ELSE '' END FROM units;
CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, CASE WHEN new.cjk THEN new.text ELSE '' END);
END;
CREATE TRIGGER units_ad AFTER DELETE ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, CASE WHEN old.cjk THEN old.text ELSE '' END);
END;
CREATE TRIGGER units_au AFTER UPDATE OF text, cjk ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO units_fts_cjk(units_fts_cjk, rowid, text) VALUES ('delete', old.id, CASE WHEN old.cjk THEN old.text ELSE '' END);
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_cjk(rowid, text) VALUES (new.id, CASE WHEN new.cjk THEN new.text ELSE '' END);
END;`,
	// 12: the bigram index of CJK text replaces the trigram index (see cjkbigrams.go): Chinese questions share
	// two-character words with their pages, which trigrams cannot match, and nothing else read the trigram index.
	// Contentless (its tokens are derived text, never read back); the triggers call proofglass_cjk_bigrams, which
	// package kb registers.
	`DROP TRIGGER units_ai;
DROP TRIGGER units_ad;
DROP TRIGGER units_au;
DROP TABLE units_fts_cjk;
DROP VIEW units_cjk;
CREATE VIRTUAL TABLE units_fts_bigram USING fts5(text, content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_bigram(rowid, text) SELECT new.id, proofglass_cjk_bigrams(new.text) WHERE new.cjk;
END;
CREATE TRIGGER units_ad AFTER DELETE ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  DELETE FROM units_fts_bigram WHERE rowid = old.id AND old.cjk;
END;
CREATE TRIGGER units_au AFTER UPDATE OF text, cjk ON units BEGIN
  INSERT INTO units_fts(units_fts, rowid, text) VALUES ('delete', old.id, old.text);
  DELETE FROM units_fts_bigram WHERE rowid = old.id AND old.cjk;
  INSERT INTO units_fts(rowid, text) VALUES (new.id, new.text);
  INSERT INTO units_fts_bigram(rowid, text) SELECT new.id, proofglass_cjk_bigrams(new.text) WHERE new.cjk;
END;
INSERT INTO units_fts_bigram(rowid, text) SELECT id, proofglass_cjk_bigrams(text) FROM units WHERE cjk;`,
	// 13: watched folders survive a crash at any point. watch_files.mode records a file's permission bits (-1: not
	// recorded), so an unreadable file is tried again only once it changes; document_deletions journals the
	// documents to delete (written in the transaction that releases them, removed with the document by the cascade,
	// finished at the next start after a crash) and blob_deletions the blobs to sweep once their rows are gone.
	`ALTER TABLE watch_files ADD COLUMN mode INTEGER NOT NULL DEFAULT -1;
CREATE TABLE document_deletions (
  document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE
);
CREATE TABLE blob_deletions (
  hash TEXT PRIMARY KEY
) WITHOUT ROWID;`,
	// 14: document facets (title, organisation, kind, year, quarter, date): one row per document, facet and source.
	// A user's value (source 'user', '' clears the facet) wins over the extracted one and outlives re-extraction,
	// which rewrites only 'extracted' rows. norm is the value folded for filters (backend/facets). facets_version
	// counts changes to them, so a searcher knows when its copy of the organisations is stale.
	`CREATE TABLE document_facets (
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  source      TEXT NOT NULL CHECK (source IN ('extracted', 'user')),
  value       TEXT NOT NULL,
  norm        TEXT NOT NULL,
  PRIMARY KEY (document_id, name, source)
) WITHOUT ROWID;
CREATE INDEX document_facets_value ON document_facets(name, norm);
CREATE VIEW document_facets_effective(document_id, name, source, value, norm) AS
  SELECT f.document_id, f.name, f.source, f.value, f.norm FROM document_facets f
  WHERE f.source = 'user' OR NOT EXISTS (SELECT 1 FROM document_facets u
    WHERE u.document_id = f.document_id AND u.name = f.name AND u.source = 'user');
CREATE TABLE facets_version (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  v  INTEGER NOT NULL
);
INSERT INTO facets_version(id, v) VALUES (1, 0);
CREATE TRIGGER document_facets_ai AFTER INSERT ON document_facets BEGIN UPDATE facets_version SET v = v + 1 WHERE id = 1; END;
CREATE TRIGGER document_facets_au AFTER UPDATE ON document_facets BEGIN UPDATE facets_version SET v = v + 1 WHERE id = 1; END;
CREATE TRIGGER document_facets_ad AFTER DELETE ON document_facets BEGIN UPDATE facets_version SET v = v + 1 WHERE id = 1; END;`,
	// 15: the library's learned ranker (backend/rank), trained on questions from its own pages: its model as JSON,
	// when it was saved (Unix milliseconds) and the report of its evaluation. scope '' is the whole library.
	`CREATE TABLE rankers (
  scope  TEXT PRIMARY KEY,
  model  BLOB NOT NULL,
  saved  INTEGER NOT NULL,
  report TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;`,
	// 16: links between documents: an e-mail's attachments (backend/mail) are documents of their own, each linked
	// to the message that carried it under the name it had there. A link goes with either document.
	`CREATE TABLE document_links (
  parent_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  child_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  kind      TEXT NOT NULL CHECK (kind IN ('attachment')),
  name      TEXT NOT NULL,
  PRIMARY KEY (parent_id, child_id)
) WITHOUT ROWID;
CREATE INDEX document_links_child ON document_links(child_id);`,
	// 17: a document's summary at a glance (backend/summary): the model that wrote it, its JSON with each figure's
	// grounding, and when it was made (Unix milliseconds). It goes with its document.
	`CREATE TABLE document_summaries (
  document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  model       TEXT NOT NULL,
  body        TEXT NOT NULL,
  created     INTEGER NOT NULL
);`,
}
