// The Compare view: the same items asked of several documents (or facet filters) side by side, one agent run per
// cell, the table filling in as the runs end, each cell with its answer, the pages it cites (opened in the viewer)
// and its grounding mark; the table saved as CSV, XLSX or Markdown through the save dialog.
import { useCallback, useEffect, useState } from 'react'
import { useOpenViewer } from '../../components/viewerContext'
import { useTranslation } from '../../i18n'
import type { Box4 } from '../../lib/events'
import type { CompareCell, CompareState } from '../../lib/types'
import { compareApi, type CompareApi, type CompareDoc, type CompareFormat } from './api'

/** The most items and targets one comparison takes (backend/compare's MaxItems and MaxTargets). */
export const maxItems = 20
export const maxTargets = 8

const formats: CompareFormat[] = ['csv', 'xlsx', 'md']

type Props = {
  collectionId: number
  collection: string
  api?: CompareApi
}

/** lines are the non-empty lines of a text box, trimmed. */
export function lines(s: string): string[] {
  return s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
}

export function Compare({ collectionId, collection, api = compareApi }: Props) {
  const { t } = useTranslation()
  const [docs, setDocs] = useState<CompareDoc[]>([])
  const [chosen, setChosen] = useState<number[]>([])
  const [items, setItems] = useState('')
  const [filters, setFilters] = useState('')
  const [parallel, setParallel] = useState(3)
  const [state, setState] = useState<CompareState | null>(null)
  const [error, setError] = useState('')
  const [saved, setSaved] = useState('')

  useEffect(() => {
    if (!collectionId) return
    api.documents(collectionId).then(setDocs, (e: unknown) => setError(String(e)))
  }, [api, collectionId])
  // States arrive out of order (events and call results race): the highest seq is the latest.
  const keep = useCallback((s: CompareState) => setState((cur) => (cur && cur.seq > s.seq ? cur : s)), [])
  useEffect(() => {
    api.state().then(
      (s) => {
        if ((s.table.items ?? []).length > 0) keep(s)
      },
      () => {},
    )
    return api.onProgress(keep)
  }, [api, keep])

  const itemList = lines(items)
  const filterList = lines(filters)
  const targets = chosen.length + filterList.length
  const running = state?.running ?? false
  const ready = itemList.length > 0 && itemList.length <= maxItems && targets >= 2 && targets <= maxTargets && !running

  const toggle = (id: number) => setChosen((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id]))
  const start = () => {
    setError('')
    setSaved('')
    api.start({ items: itemList, documents: chosen, where: filterList, collection, parallel }).then(keep, (e: unknown) =>
      setError(String(e instanceof Error ? e.message : e)),
    )
  }
  const save = (f: CompareFormat) => {
    setSaved('')
    api.save(f).then(
      (path) => {
        if (path) setSaved(path)
      },
      (e: unknown) => setError(String(e instanceof Error ? e.message : e)),
    )
  }

  const table = state?.table
  const cells = (table?.cells ?? []).flatMap((r) => r ?? [])
  const ended = cells.filter((c) => c.state !== 'pending' && c.state !== 'running').length
  return (
    <section className="compare" aria-label={t('compare.title')}>
      <div className="compare-form">
        <label className="field">
          <span>{t('compare.items')}</span>
          <textarea
            rows={4}
            value={items}
            placeholder={t('compare.itemsPlaceholder')}
            onChange={(e) => setItems(e.target.value)}
          />
        </label>
        <fieldset className="field">
          <legend>{t('compare.documents')}</legend>
          {docs.length === 0 && <p className="muted">{t('compare.noDocuments')}</p>}
          {docs.map((d) => (
            <label key={d.id} className="check">
              <input type="checkbox" checked={chosen.includes(d.id)} onChange={() => toggle(d.id)} /> {d.name}
            </label>
          ))}
        </fieldset>
        <label className="field">
          <span>{t('compare.filters')}</span>
          <textarea rows={2} value={filters} placeholder={t('compare.filtersPlaceholder')} onChange={(e) => setFilters(e.target.value)} />
        </label>
        <label className="field">
          <span>{t('compare.parallel')}</span>
          <input
            type="number"
            min={1}
            max={8}
            value={parallel}
            onChange={(e) => setParallel(Math.min(8, Math.max(1, Number(e.target.value) || 1)))}
          />
        </label>
        <p className="muted">{t('compare.targets', { count: targets, max: maxTargets })}</p>
        <div className="row">
          <button className="primary" disabled={!ready} onClick={start}>
            {t('compare.run')}
          </button>
          {running && <button onClick={() => api.stop()}>{t('common.stop')}</button>}
        </div>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {table && (
        <>
          <p role="status" className="muted">
            {running ? t('compare.progress', { done: ended, total: cells.length }) : t('compare.finished', { done: ended, total: cells.length })}
            {state?.error ? ` — ${state.error}` : ''}
          </p>
          <div className="compare-table-wrap">
            <table className="compare-table" data-testid="compare-table">
              <thead>
                <tr>
                  <th scope="col">{t('compare.item')}</th>
                  {(table.columns ?? []).map((c, j) => (
                    <th key={j} scope="col" title={c.where ?? c.label}>
                      {c.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {(table.items ?? []).map((item, i) => (
                  <tr key={i}>
                    <th scope="row">{item}</th>
                    {(table.cells?.[i] ?? []).map((c, j) => (
                      <td key={j} data-state={c.state}>
                        <CellView cell={c} />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {!running && (
            <div className="row">
              {formats.map((f) => (
                <button key={f} onClick={() => save(f)}>
                  {t(`compare.save.${f}`)}
                </button>
              ))}
              {saved && <span className="muted">{t('compare.saved', { path: saved })}</span>}
            </div>
          )}
        </>
      )}
    </section>
  )
}

/** CellView is one answer: its text (or what happened instead), its sources as buttons that open the page, and its
 * grounding mark. */
function CellView({ cell }: { cell: CompareCell }) {
  const { t } = useTranslation()
  const open = useOpenViewer()
  if (cell.state === 'pending' || cell.state === 'running') return <span className="muted">{t(`compare.state.${cell.state}`)}</span>
  if (cell.state === 'failed')
    return (
      <span className="error" title={cell.error}>
        {t('compare.failed', { error: cell.error ?? '' })}
      </span>
    )
  if (cell.state === 'cancelled') return <span className="muted">{t('compare.state.cancelled')}</span>
  return (
    <div className="compare-cell">
      <p>{cell.answer}</p>
      <div className="compare-sources">
        {(cell.citations ?? []).map((c, k) => (
          <button
            key={k}
            className="link"
            onClick={() =>
              open({
                documentId: Number(c.document_id),
                unitId: Number(c.unit_id),
                title: c.document_name,
                regions: c.region ? [c.region as Box4] : undefined,
              })
            }
          >
            {t('compare.source', { name: c.document_name, page: c.page })}
          </button>
        ))}
      </div>
      <span className={`mark mark-${cell.mark}`} data-testid="mark" data-mark={cell.mark} title={cell.grounding}>
        {t(`compare.mark.${cell.mark}`)}
      </span>
    </div>
  )
}
