// Plain data types of what the Go backend returns (JSON shapes of backend/kb, search, config and model types).

export interface Collection {
  id: number
  name: string
  text_embedder: string
  text_dim: number
  image_embedder?: string
  image_dim?: number
  documents: number
  units: number
}

export interface Document {
  id: number
  collection_id: number
  sha256: string
  name: string
  source_path?: string
  kind: string // pdf | image | video
  mime?: string
  size_bytes: number
  status: string // queued | ingesting | ready | failed (see backend/kb)
  error?: string
  pages: number
  duration_ms?: number
  updated_at?: string
}

export interface PageRef {
  id: number
  document_id: number
  ordinal: number
  kind: string // page | image | clip
  width: number
  height: number
  t_start_ms?: number
  t_end_ms?: number
  text_source: string
  thumb?: string
}

export interface SearchBox {
  term: string
  x0: number
  y0: number
  x1: number
  y1: number
}

export interface SearchHit {
  unit_id: number
  document_id: number
  doc: string
  doc_kind: string
  collection_id: number
  page: number
  unit_kind: string
  width: number
  height: number
  score: number
  thumb?: string
  boxes: SearchBox[] | null
  snippet?: string
}

export interface SearchResult {
  hits: SearchHit[] | null
  notes?: string[] | null
}

export interface Provider {
  name: string
  kind: string // ollama | openai | dashscope | builtin
  base_url: string
  chat_model: string
  embed_model: string
  context_length?: number // Ollama num_ctx: 0 sized per run, -1 the server's default, N fixed
  sampling?: Sampling
}

export interface Sampling {
  temperature?: number
  top_p?: number
  max_tokens?: number
  seed?: number
}

export interface AgentDefaults {
  provider: string
  mode: string
  think: boolean
  top_k: number
  follow_ups?: string // "rewrite" (default) | "off"
  vrag_max_steps?: number
  vimrag_max_steps?: number
}

/** ProbeResult is one check of `proofglass doctor --model` / the settings screen's model check. */
export interface ProbeResult {
  name: string
  ok: boolean
  skipped?: boolean
  optional?: boolean
  detail: string
  fix?: string
}

/** PullEvent is the progress of an Ollama pull. */
export interface PullEvent {
  provider: string
  model: string
  status: string
  completed?: number
  total?: number
  done?: boolean
  error?: string
}

export interface Settings {
  version: number
  providers: Provider[]
  agent: AgentDefaults
  ingest: { ocr_languages: string[]; clip_seconds: number; workers: number; transcription?: { provider: string; model: string } }
  theme: string
}

export interface ModelInfo {
  name: string
  provider: string
  chat: boolean
  vision: boolean
  embedding: boolean
  tools: boolean
  thinking: boolean
  size_bytes?: number
}

export interface ProviderResult {
  name: string
  kind: string
  base_url: string
  reachable: boolean
  version?: string
  models: number
  chat_model?: string
  chat_model_found?: boolean
  embed_model?: string
  embed_model_found?: boolean
  latency_ms: number
  error?: string
}

export interface Conversation {
  id: number
  title: string
  collection_id?: number
  created_at: string
  updated_at: string
}

export interface Message {
  id: number
  conversation_id: number
  role: 'user' | 'assistant'
  content: string
  run_id?: number
  created_at: string
}

/** One ingest progress event for a document (backend/ingest Progress, sent as "ingest:progress"). */
export interface IngestProgress {
  /** Emission order within the backend's ingester: the latest event per document wins, whatever order they arrive. */
  seq?: number
  document_id?: number
  name: string
  path?: string
  collection?: string
  kind?: string
  /** start | extract | render | ocr | embed | done | failed | exists | skipped */
  stage: string
  ordinal?: number
  done: number
  total: number
  pages_per_s?: number
  eta_s?: number
  status?: string
  error?: string
  warning?: string
}

/** Whether a progress event ends its document's ingest, and how. */
export function progressState(p: IngestProgress): 'running' | 'done' | 'failed' {
  if (p.stage === 'failed') return 'failed'
  if (p.stage === 'done' || p.stage === 'exists' || p.stage === 'skipped') return 'done'
  return 'running'
}

/** progressKey is the document an event is about: its id, or its path before it has one. */
export function progressKey(p: IngestProgress): string {
  return p.document_id ? String(p.document_id) : p.path || p.name
}

/**
 * foldProgress records p as its document's state unless a later event (higher seq) is already there: events can
 * arrive out of order, and a page event arriving after "done" must not turn a finished row back to running.
 */
export function foldProgress(m: Record<string, IngestProgress>, p: IngestProgress): void {
  const key = progressKey(p)
  const prev = m[key]
  if (prev && (prev.seq ?? 0) > (p.seq ?? 0)) return
  m[key] = p
}
