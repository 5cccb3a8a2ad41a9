import { useEffect, useState } from 'react'
import { useTranslation } from '../../i18n'
import type { Box4 } from '../../lib/events'
import type { Claim, Statement, Summary } from '../../lib/types'

type Props = {
  documentId: number
  /** The outline, with the stored summary when there is one (LibraryService.DocumentGlance). */
  load: (documentId: number) => Promise<Summary>
  /** Asks the chat model for a summary (again, with refresh). */
  summarize: (documentId: number, refresh: boolean) => Promise<Summary>
  /** Opens a page of the document in the viewer, at a region (0..1) when one is known. */
  onOpenPage: (page: number, region?: Box4) => void
}

/** statusKey names a claim's grounding status in the catalogue (grounding.status.*). */
function statusKey(status: string): string {
  switch (status) {
    case 'region':
      return 'region'
    case 'cited_page':
      return 'citedPage'
    case 'mismatch':
      return 'mismatch'
    case 'elsewhere':
      return 'elsewhere'
    case 'computed':
      return 'computed'
  }
  return 'notFound'
}

function markOf(status: string): string {
  switch (status) {
    case 'region':
    case 'cited_page':
    case 'computed':
      return '✓'
    case 'mismatch':
      return '✗'
    case 'elsewhere':
      return '~'
  }
  return '?'
}

const figureClaims = (st: Statement): Claim[] => (st.claims ?? []).filter((c) => c.kind !== 'quote' && c.kind !== 'name')

/**
 * Glance is a document at a glance: its outline (sections, tables, figures and key figures, each a link to its
 * page), read offline, and on request the chat model's summary, each figure marked by whether the page it cites
 * holds it.
 */
export function Glance({ documentId, load, summarize, onOpenPage }: Props) {
  const { t } = useTranslation()
  const [sum, setSum] = useState<Summary | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')

  useEffect(() => {
    let live = true
    setSum(null)
    setError('')
    load(documentId).then(
      (s) => live && setSum(s),
      (e: unknown) => live && setError(String(e)),
    )
    return () => {
      live = false
    }
  }, [documentId, load])

  const ask = async (refresh: boolean) => {
    setBusy(true)
    setError('')
    try {
      setSum(await summarize(documentId, refresh))
    } catch (e: unknown) {
      setError(String(e))
    } finally {
      setBusy(false)
    }
  }

  if (!sum) {
    return error ? (
      <p role="alert" className="error">
        {error}
      </p>
    ) : null
  }
  const o = sum.outline
  const sections = o.sections ?? []
  const tables = o.tables ?? []
  const figures = o.figures ?? []
  const keys = o.key_figures ?? []
  const sentences = sum.sentences ?? []
  const modelFigures = sum.key_figures ?? []
  const hasSummary = sentences.length > 0 || modelFigures.length > 0

  const pageLink = (page: number, region?: Box4 | null) => (
    <button className="link page-link" onClick={() => onOpenPage(page, region ?? undefined)}>
      {t('glance.page', { page })}
    </button>
  )
  const statement = (st: Statement, i: number) => (
    <li key={i} data-testid="glance-statement">
      <span>{st.text}</span> {(st.pages ?? []).map((p) => <span key={p}>{pageLink(p)} </span>)}
      {figureClaims(st).map((c, j) => (
        <button
          key={j}
          className={`claim-mark mark-${statusKey(c.status)}`}
          title={t(`grounding.status.${statusKey(c.status)}`, { id: c.calculation ?? '' })}
          aria-label={t(`grounding.status.${statusKey(c.status)}`, { id: c.calculation ?? '' })}
          data-status={c.status}
          disabled={!c.page}
          onClick={() => c.page && onOpenPage(c.page, c.region ?? undefined)}
        >
          {markOf(c.status)} {c.text}
        </button>
      ))}
    </li>
  )

  return (
    <section className="glance" aria-label={t('glance.title')} data-testid="glance">
      <details>
        <summary>
          <strong>{t('glance.title')}</strong>
          {o.title ? <span className="muted"> · {o.title}</span> : null}
        </summary>
        <div className="glance-summary">
          {hasSummary ? (
            <>
              <p className="muted">
                {t('glance.byModel', { model: sum.model, grounded: sum.grounded, figures: sum.figures })}
                {sum.mismatched > 0 ? t('glance.mismatched', { count: sum.mismatched }) : null}
              </p>
              <ul>{sentences.map(statement)}</ul>
              {modelFigures.length > 0 && (
                <>
                  <h4>{t('glance.modelFigures')}</h4>
                  <ul>{modelFigures.map(statement)}</ul>
                </>
              )}
            </>
          ) : (
            <p className="muted">{t('glance.noSummary')}</p>
          )}
          <button onClick={() => ask(hasSummary)} disabled={busy}>
            {busy ? t('glance.asking') : hasSummary ? t('glance.askAgain') : t('glance.ask')}
          </button>
          {error && (
            <p role="alert" className="error">
              {error}
            </p>
          )}
        </div>
        {sections.length > 0 && (
          <>
            <h4>{t('glance.sections')}</h4>
            <ul className="glance-sections">
              {sections.map((s, i) => (
                <li key={i} style={{ paddingLeft: `${Math.max(0, s.level - 1) * 1.2}em` }} data-testid="glance-section">
                  {s.number ? <span className="muted">{s.number} </span> : null}
                  <span>{s.title}</span> {pageLink(s.page, s.region)}
                </li>
              ))}
            </ul>
          </>
        )}
        {tables.length > 0 && (
          <>
            <h4>{t('glance.tables')}</h4>
            <ul>
              {tables.map((tb, i) => (
                <li key={i} data-testid="glance-table">
                  <span>{tb.caption || t('glance.untitledTable', { index: tb.index })}</span>
                  {tb.columns > 0 ? <span className="muted"> {t('glance.size', { rows: tb.rows, columns: tb.columns })}</span> : null}{' '}
                  {pageLink(tb.page, tb.region)}
                </li>
              ))}
            </ul>
          </>
        )}
        {figures.length > 0 && (
          <>
            <h4>{t('glance.figures')}</h4>
            <ul>
              {figures.map((f, i) => (
                <li key={i} data-testid="glance-figure">
                  <span>{f.caption}</span> {pageLink(f.page, f.region)}
                </li>
              ))}
            </ul>
          </>
        )}
        {keys.length > 0 && (
          <>
            <h4>{t('glance.keyFigures')}</h4>
            <ul>
              {keys.map((k, i) => (
                <li key={i} data-testid="glance-key">
                  <strong>{k.figure}</strong> <span>{k.text}</span> {pageLink(k.page, k.region)}
                </li>
              ))}
            </ul>
          </>
        )}
        {(o.cut ?? 0) > 0 && <p className="muted">{t('glance.cut', { count: o.cut })}</p>}
      </details>
    </section>
  )
}
