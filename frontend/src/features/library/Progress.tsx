import { useState } from 'react'
import { i18n, t as translate, useTranslation } from '../../i18n'
import { percent, progressLine } from '../../lib/format'
import { progressState, type Document, type IngestProgress } from '../../lib/types'

/** IngestList shows each document being added: stage, a bar, pages/s and ETA; failures with the reason and a retry. */
export function IngestList({
  items,
  onRetry,
}: {
  items: IngestProgress[]
  onRetry: (p: IngestProgress, password?: string) => void
}) {
  const { t } = useTranslation()
  if (items.length === 0) return null
  return (
    <section className="ingest" aria-label={t('ingest.adding')} data-testid="ingest">
      {items.map((p) => {
        const state = progressState(p)
        return (
        <div key={(p.document_id ?? '') + ':' + (p.path ?? p.name)} className={'ingest-row ' + state} data-testid="ingest-row" data-state={state}>
          <div className="ingest-head">
            <span className="ellipsis" title={p.path ?? p.name}>
              {p.name}
            </span>
            <span className="muted" data-testid="ingest-line">
              {state === 'failed' ? t('ingest.failed') : state === 'done' ? doneLine(p) : progressLine(p)}
            </span>
          </div>
          {state === 'failed' ? (
            <div className="ingest-error">
              <span role="alert" title={p.error || undefined}>
                {ingestError(p) || t('ingest.unknownError')}
              </span>
              {needsPassword(p) ? (
                <PasswordRetry name={p.name} onRetry={(pw) => onRetry(p, pw)} />
              ) : (
                <button onClick={() => onRetry(p)}>{t('common.retry')}</button>
              )}
            </div>
          ) : (
            <div
              className="bar"
              role="progressbar"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={state === 'done' ? 100 : percent(p.done, p.total)}
              aria-label={t('ingest.progressLabel', { name: p.name })}
            >
              {/* scaleX, not width: the bar then animates on the compositor without re-laying out the window. */}
              <div style={{ transform: `scaleX(${(state === 'done' ? 100 : percent(p.done, p.total)) / 100})` }} />
            </div>
          )}
        </div>
        )
      })}
    </section>
  )
}

function doneLine(p: IngestProgress): string {
  if (p.stage === 'exists') return translate('ingest.exists')
  if (p.stage === 'skipped') return translate('ingest.skipped')
  return translate(p.kind === 'video' ? 'ingest.doneClips' : 'ingest.donePages', { count: p.total })
}

/** ingestError is a failure's reason in the window's language: the backend's code translated, else its English text. */
export function ingestError(p: Pick<IngestProgress, 'error' | 'code' | 'params'>): string {
  const key = `backend.ingest.${p.code}`
  if (p.code && i18n.exists(key)) return translate(key, { ...p.params })
  return p.error ?? ''
}

/** documentError is a stored failed document's reason in the window's language: the code ingest kept in its meta
 * translated, else the English text of its error column. */
export function documentError(d: Pick<Document, 'error' | 'meta'>): string {
  let code: string | undefined
  let params: Record<string, string> | undefined
  try {
    const m = JSON.parse(d.meta || '{}') as { error_code?: unknown; error_params?: unknown }
    if (typeof m.error_code === 'string') code = m.error_code
    if (m.error_params && typeof m.error_params === 'object') params = m.error_params as Record<string, string>
  } catch {
    // a meta column that is not JSON: the English text
  }
  return ingestError({ error: d.error, code, params })
}

/** needsPassword reports whether a failure is an encrypted PDF waiting for its password. */
export function needsPassword(p: IngestProgress): boolean {
  if (!p.document_id) return false
  if (p.code) return p.code === 'password_required' || p.code === 'wrong_password'
  return /password required/i.test(p.error ?? '')
}

function PasswordRetry({ name, onRetry }: { name: string; onRetry: (password: string) => void }) {
  const { t } = useTranslation()
  const [pw, setPw] = useState('')
  return (
    <form
      className="password-retry"
      onSubmit={(e) => {
        e.preventDefault()
        if (pw) onRetry(pw)
      }}
    >
      <input
        type="password"
        aria-label={t('ingest.passwordFor', { name })}
        placeholder={t('ingest.passwordPlaceholder')}
        value={pw}
        onChange={(e) => setPw(e.target.value)}
        autoComplete="off"
      />
      <button type="submit" disabled={!pw}>
        {t('common.open')}
      </button>
    </form>
  )
}
