// The Go backend's types as the window sees them. Most are generated from Go (./generated/types.ts, by
// `make generate`); the few still declared in package main (app*.go) are written here by hand until they move to a
// backend package, where the generator can reach them.
import type { IngestProgress } from './generated/types'

export type * from './generated/types'

/** PageRef is a unit as the grid and the viewer need it (package main's PageRef, app.go). */
export interface PageRef {
  id: number
  document_id: number
  ordinal: number
  /** page | image | clip */
  kind: string
  width: number
  height: number
  t_start_ms?: number
  t_end_ms?: number
  text_source: string
  thumb?: string
}

/** PullEvent is the progress of an Ollama pull (package main's PullEvent, app_models.go; sent as models:pull). */
export interface PullEvent {
  provider: string
  model: string
  status: string
  completed?: number
  total?: number
  done?: boolean
  error?: string
}

/** EvalState is the evaluation running in the window (package main's EvalState, app_eval.go; sent as eval:progress). */
export interface EvalState {
  running: boolean
  evaluation: number
  done: number
  total: number
  resumed: number
  error?: string
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
