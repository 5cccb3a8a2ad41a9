// The Go backend's types as the window sees them, all generated from Go (./generated/types.ts, by `make generate`),
// with the helpers that work on them.
import type { IngestProgress } from './generated/types'

export type * from './generated/types'

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
