-- The current schema, applied as is to a new database. migrations.go upgrades older ones to exactly this;
-- TestMigratedEqualsFresh keeps the two in step.
CREATE TABLE collections (
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
  text_embedder  TEXT NOT NULL,
  text_dim       INTEGER NOT NULL CHECK (text_dim > 0),
  image_embedder TEXT NOT NULL DEFAULT '',
  image_dim      INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL
);

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
CREATE INDEX documents_status ON documents(status);

-- cjk: the text holds CJK characters; the writer sets it (kb.hasCJK), the bigram index's triggers read it.
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
  cjk         INTEGER NOT NULL DEFAULT 0,
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

-- porter stems English words ("degrees" finds "degree"); unicode61 folds case and diacritics underneath it.
CREATE VIRTUAL TABLE units_fts USING fts5(text, content='units', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2');
-- CJK text (units.cjk) as overlapping character pairs (cjkbigrams.go), for CJK questions; contentless, its tokens are
-- derived text. proofglass_cjk_bigrams is registered by package kb.
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

CREATE TABLE vectors (
  unit_id  INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  embedder TEXT NOT NULL,
  modality TEXT NOT NULL CHECK (modality IN ('text', 'image')),
  dim      INTEGER NOT NULL CHECK (dim > 0),
  vec      BLOB NOT NULL CHECK (length(vec) = 4 * dim),
  PRIMARY KEY (unit_id, embedder, modality)
) WITHOUT ROWID;
CREATE INDEX vectors_embedder ON vectors(embedder, modality);

CREATE TABLE passages (
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
END;

CREATE TABLE ingest_steps (
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal     INTEGER NOT NULL,
  stage       TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('done', 'failed', 'skipped')),
  error       TEXT NOT NULL DEFAULT '',
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (document_id, ordinal, stage)
) WITHOUT ROWID;

CREATE TABLE conversations (
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
);

CREATE TABLE watch_folders (
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
  mode        INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY (folder_id, rel)
) WITHOUT ROWID;
CREATE INDEX watch_files_document ON watch_files(document_id);
CREATE TABLE document_deletions (
  document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE
);
CREATE TABLE blob_deletions (
  hash TEXT PRIMARY KEY
) WITHOUT ROWID;

CREATE TABLE evaluations (
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
) WITHOUT ROWID;

-- A log of unit text changes, so an in-memory word index knows which units changed since it was built.
CREATE TABLE unit_changes (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  unit_id INTEGER NOT NULL
);
CREATE TRIGGER unit_changes_ai AFTER INSERT ON units BEGIN INSERT INTO unit_changes(unit_id) VALUES (new.id); END;
CREATE TRIGGER unit_changes_ad AFTER DELETE ON units BEGIN INSERT INTO unit_changes(unit_id) VALUES (old.id); END;
CREATE TRIGGER unit_changes_au AFTER UPDATE OF text ON units BEGIN INSERT INTO unit_changes(unit_id) VALUES (new.id); END;

-- Document facets (title, organisation, kind, year, quarter, date); a user's value wins over the extracted one.
CREATE TABLE document_facets (
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
CREATE TRIGGER document_facets_ad AFTER DELETE ON document_facets BEGIN UPDATE facets_version SET v = v + 1 WHERE id = 1; END;
CREATE TABLE rankers (
  scope  TEXT PRIMARY KEY,
  model  BLOB NOT NULL,
  saved  INTEGER NOT NULL,
  report TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
CREATE TABLE document_links (
  parent_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  child_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  kind      TEXT NOT NULL CHECK (kind IN ('attachment')),
  name      TEXT NOT NULL,
  PRIMARY KEY (parent_id, child_id)
) WITHOUT ROWID;
CREATE INDEX document_links_child ON document_links(child_id);

-- A document's summary at a glance (backend/summary): the model that wrote it, its JSON with each figure's
-- grounding, and when it was made (Unix milliseconds).
CREATE TABLE document_summaries (
  document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  model       TEXT NOT NULL,
  body        TEXT NOT NULL,
  created     INTEGER NOT NULL
);
