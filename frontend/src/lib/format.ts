// Human-readable numbers for progress, sizes and durations, in the window's language (numbers through Intl).
import { currentLanguage, t } from '../i18n'
import type { Usage } from './events'

/** formatNumber writes a number the way the window's language does (grouping, decimal mark). */
export function formatNumber(n: number, fractionDigits = 0, locale: string = currentLanguage()): string {
  return new Intl.NumberFormat(locale, { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }).format(n)
}

/** formatDate writes a date (medium style) in the window's language. */
export function formatDate(d: Date, locale: string = currentLanguage()): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(d)
}

/** formatDateTime writes a date and time (medium date, short time) in the window's language. */
export function formatDateTime(d: Date, locale: string = currentLanguage()): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(d)
}

const two = (n: number) => String(n).padStart(2, '0')

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—'
  const s = Math.round(seconds)
  if (s < 60) return t('format.seconds', { s: formatNumber(s) })
  const m = Math.floor(s / 60)
  if (m < 60) return t('format.minutesSeconds', { m: formatNumber(m), s: two(s % 60) })
  const h = Math.floor(m / 60)
  return t('format.hoursMinutes', { h: formatNumber(h), m: two(m % 60) })
}

export function formatRate(perSecond: number, unit: string = t('format.pagesUnit')): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return ''
  const v = perSecond >= 10 ? formatNumber(Math.round(perSecond)) : formatNumber(perSecond, 1)
  return t('format.rate', { value: v, unit })
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return ''
  if (n < 1024) return `${formatNumber(n)} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v >= 10 ? formatNumber(Math.round(v)) : formatNumber(v, 1)} ${units[i]}`
}

export function percent(done: number, total: number): number {
  if (total <= 0) return 0
  return Math.max(0, Math.min(100, Math.round((done / total) * 100)))
}

const stages = ['queued', 'sniff', 'extract', 'render', 'text', 'ocr', 'embed', 'index', 'done', 'failed']

export function stageLabel(stage: string): string {
  if (stages.includes(stage)) return t(`stage.${stage}`)
  return stage ? stage[0].toUpperCase() + stage.slice(1) : ''
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
  if (p.total > 0) parts.push(t('format.pagesDone', { done: p.done, total: p.total }))
  const rate = formatRate(p.pages_per_s ?? 0)
  if (rate) parts.push(rate)
  if (p.eta_s !== undefined && p.eta_s > 0 && p.done < p.total) parts.push(t('format.eta', { duration: formatDuration(p.eta_s) }))
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
  const video = p.kind === 'video'
  if (p.total <= 0) return t('format.notSearchableYet', { name: p.name })
  const first = Math.min(p.done + 1, p.total)
  const span =
    first === p.total
      ? t(video ? 'format.oneClip' : 'format.onePage', { n: p.total })
      : t(video ? 'format.clipRange' : 'format.pageRange', { from: first, to: p.total })
  return t('format.unitsNotSearchable', { name: p.name, span, total: p.total })
}

/** ingestNotice is the note a question gets when documents are still being ingested ('' when none are). */
export function ingestNotice(pending: PendingLike[]): string {
  if (pending.length === 0) return ''
  return t('format.stillIngesting', { list: pending.map(unsearchable).join(t('format.listJoin')) })
}

/** promptsCut reports whether the server counted fewer prompt tokens than Proofglass sent at least: it cut prompts. */
export function promptsCut(u: Usage): boolean {
  const sent = u.prompt_tokens_sent ?? 0
  return sent > 0 && u.prompt_tokens < sent
}
