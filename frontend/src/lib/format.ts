// Human-readable numbers for progress, sizes and durations.
import type { Usage } from './events'

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—'
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`
  const h = Math.floor(m / 60)
  return `${h} h ${String(m % 60).padStart(2, '0')} min`
}

export function formatRate(perSecond: number, unit = 'pages'): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return ''
  const v = perSecond >= 10 ? Math.round(perSecond).toString() : perSecond.toFixed(1)
  return `${v} ${unit}/s`
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return ''
  if (n < 1024) return `${n} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v >= 10 ? Math.round(v) : v.toFixed(1)} ${units[i]}`
}

export function percent(done: number, total: number): number {
  if (total <= 0) return 0
  return Math.max(0, Math.min(100, Math.round((done / total) * 100)))
}

const stageNames: Record<string, string> = {
  queued: 'Queued',
  sniff: 'Checking',
  extract: 'Reading',
  render: 'Rendering',
  text: 'Extracting text',
  ocr: 'OCR',
  embed: 'Embedding',
  index: 'Indexing',
  done: 'Done',
  failed: 'Failed',
}

export function stageLabel(stage: string): string {
  return stageNames[stage] ?? (stage ? stage[0].toUpperCase() + stage.slice(1) : '')
}

export interface ProgressLike {
  stage: string
  done: number
  total: number
  pages_per_s?: number
  eta_s?: number
}

/** progressLine is the one-line summary under a document's progress bar. */
export function progressLine(p: ProgressLike): string {
  const parts = [stageLabel(p.stage)]
  if (p.total > 0) parts.push(`${p.done}/${p.total} pages`)
  const rate = formatRate(p.pages_per_s ?? 0)
  if (rate) parts.push(rate)
  if (p.eta_s !== undefined && p.eta_s > 0 && p.done < p.total) parts.push(`ETA ${formatDuration(p.eta_s)}`)
  return parts.join(' · ')
}

export interface PendingLike {
  name: string
  kind?: string
  done: number
  total: number
}

/** unsearchable says which units of a document still being ingested cannot be found yet. */
export function unsearchable(p: PendingLike): string {
  const unit = p.kind === 'video' ? 'clip' : 'page'
  if (p.total <= 0) return `${p.name}: not searchable yet`
  const first = Math.min(p.done + 1, p.total)
  const span = first === p.total ? `${unit} ${p.total}` : `${unit}s ${first}–${p.total}`
  return `${p.name}: ${span} of ${p.total} not searchable yet`
}

/** ingestNotice is the note a question gets when documents are still being ingested ('' when none are). */
export function ingestNotice(pending: PendingLike[]): string {
  if (pending.length === 0) return ''
  return `Still ingesting — ${pending.map(unsearchable).join('; ')}.`
}

/** promptsCut reports whether the server counted fewer prompt tokens than Proofglass sent at least: it cut prompts. */
export function promptsCut(u: Usage): boolean {
  const sent = u.prompt_tokens_sent ?? 0
  return sent > 0 && u.prompt_tokens < sent
}
