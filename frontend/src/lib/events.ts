// The agent's event stream, mirrored exactly from backend/agent/event.go (field names are the JSON contract).
// One payload field is set per event: the one named by kind (text for thinking and content).

export type Kind =
  | 'run_started'
  | 'rewrite'
  | 'thinking'
  | 'content'
  | 'search'
  | 'results'
  | 'crop'
  | 'memorize'
  | 'graph'
  | 'answer'
  | 'error'
  | 'done'

export interface ImageRef {
  blob: string
  mime: string
  width: number
  height: number
  bytes: number
}

export interface RunInfo {
  mode: string // vrag | vimrag | vanilla | react
  question: string
  provider?: string
  model?: string
  collection?: string
  think: boolean
  max_steps: number
  top_k: number
  options?: { temperature?: number; top_p?: number; max_tokens?: number; seed?: number; think?: boolean; num_ctx?: number }
  context?: ContextInfo
}

/** ContextInfo is the run's context window; with a context_* error, what went wrong with it. */
export interface ContextInfo {
  num_ctx?: number
  window?: number
  model_max?: number
  needed?: number
  estimated?: number
  server_counted?: number
}

export interface DocRef {
  id: string
  name: string
}

/** How a question asked in a conversation was understood (rewritten when it leaned on earlier turns). */
export interface RewriteInfo {
  asked: string
  question: string
  rewritten: boolean
  reason: string // first_turn | standalone | follow_up | off
  error?: string
  prefer?: DocRef[]
}

export interface SearchInfo {
  query: string
  node_id?: string
  prefer?: DocRef[]
}

export interface Hit {
  unit_id: string
  document_id: string
  document_name: string
  kind: string // pdf | image | video
  page: number
  score: number
  scores?: Record<string, number>
  start_s?: number
  end_s?: number
  thumbnail?: string
  label?: string
  shown: boolean
  skipped?: string
}

export interface SentImage {
  unit_id: string
  image: ImageRef
  encoder_w: number
  encoder_h: number
  visual_tokens: number
  timestamp_s?: number
}

export interface ResultsInfo {
  query: string
  node_id?: string
  hits: Hit[]
  sent?: SentImage[]
}

export type Box4 = [number, number, number, number]

export interface CropInfo {
  unit_id: string
  document_id: string
  document_name: string
  page: number
  bbox_sent: Box4
  frame_w: number
  frame_h: number
  bbox_raw: Box4
  page_w: number
  page_h: number
  region: Box4 // 0..1 of the page
  image: SentImage
  true_zoom: boolean
  of_crop: boolean
}

export interface MemoryItem {
  information_id: string
  unit_id?: string
  page?: number
  document_name?: string
  is_useful: boolean
  priority_score: number
  key_timestamp?: number[]
  frames?: number[]
  kept: boolean
}

export interface MemorizeInfo {
  node_id: string
  summary: string
  items: MemoryItem[]
}

export interface GraphNode {
  id: string
  type: string // root | search | answer
  parents?: string[]
  query?: string
  summary?: string
  answer?: string
}

export interface GraphEdge {
  from: string
  to: string
}

export interface Budget {
  node_id: string
  information_id: string
  unit_id?: string
  energy: number
  omega: number
  selected: boolean
  pixels: number
  visual_tokens: number
}

export interface GraphInfo {
  nodes: GraphNode[]
  edges: GraphEdge[]
  budgets?: Budget[]
  total_pixels: number
}

export interface Citation {
  unit_id: string
  document_id: string
  document_name: string
  page: number
  region?: Box4
}

export interface AnswerInfo {
  text: string
  citations: Citation[]
  forced?: boolean
}

export interface ErrorInfo {
  code: string // invalid_action | parse | graph | search | render | model | cancelled | internal | context_*
  message: string
  recoverable: boolean
  context?: ContextInfo // context_capped, context_near_limit, context_truncated
}

export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  images: number
  visual_tokens: number
  steps: number
  tool_steps: number
  rewrite_calls?: number
  wall_ms: number
}

export type Status = 'answered' | 'no_answer' | 'cancelled' | 'failed'

export interface DoneInfo {
  status: Status
  usage: Usage
}

export interface AgentEvent {
  seq: number
  time: string
  elapsed_ms: number
  run_id: string
  kind: Kind
  step: number
  text?: string
  run?: RunInfo
  rewrite?: RewriteInfo
  search?: SearchInfo
  results?: ResultsInfo
  crop?: CropInfo
  memorize?: MemorizeInfo
  graph?: GraphInfo
  answer?: AnswerInfo
  error?: ErrorInfo
  done?: DoneInfo
}

export const modes = ['vrag', 'vimrag', 'vanilla', 'react'] as const
export type Mode = (typeof modes)[number]
