import { useEffect, useState } from 'react'
import { useTranslation } from '../../i18n'
import type { Metrics, Pair, Report } from '../../lib/types'
import { formatDateTime } from '../../lib/format'
import { evalApi, type EvalApi } from './api'

/** SearchApi is the part of the evaluation service this view calls. */
export type SearchApi = Pick<EvalApi, 'searchReport' | 'measureSearch' | 'forgetRanker'>

type Props = { api?: SearchApi }

function MetricCells({ m }: { m: Metrics }) {
  return (
    <>
      <td>{m.hit1.toFixed(3)}</td>
      <td>{m.hit5.toFixed(3)}</td>
      <td>{m.hit10.toFixed(3)}</td>
      <td>{m.mrr.toFixed(3)}</td>
    </>
  )
}

function PairRows({ name, p }: { name: string; p: Pair }) {
  const { t } = useTranslation()
  return (
    <>
      <tr>
        <th scope="row">{name}</th>
        <td>{p.hand_set.questions}</td>
        <td>{t('eval.handSet')}</td>
        <MetricCells m={p.hand_set} />
      </tr>
      {p.learned && (
        <tr className="learned">
          <td />
          <td />
          <td>{t('eval.learned')}</td>
          <MetricCells m={p.learned} />
        </tr>
      )}
    </>
  )
}

/** SearchQuality measures how well search finds this library's pages and trains its ranker, as `proofglass eval
 * library` does. */
export function SearchQuality({ api = evalApi }: Props) {
  const { t } = useTranslation()
  const [report, setReport] = useState<Report | null>(null)
  const [stored, setStored] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')

  useEffect(() => {
    api.searchReport().then(
      (r) => {
        setReport(r)
        setStored(r !== null)
      },
      (e: unknown) => setError(String(e)),
    )
  }, [api])

  const measure = (train: boolean) => {
    setBusy(true)
    setError('')
    api
      .measureSearch(train)
      .then(
        (r) => {
          setReport(r)
          if (r?.trained && (!r.kept || !r.kept_document)) setStored(true)
        },
        (e: unknown) => setError(String(e)),
      )
      .finally(() => setBusy(false))
  }
  const forget = () => {
    api.forgetRanker().then(
      () => setStored(false),
      (e: unknown) => setError(String(e)),
    )
  }

  return (
    <section className="eval search-quality" aria-label={t('eval.searchSection')}>
      <h2>{t('eval.searchSection')}</h2>
      <p className="muted">{t('eval.searchHint')}</p>
      <span className="row">
        <button type="button" disabled={busy} onClick={() => measure(false)}>
          {t('eval.measure')}
        </button>
        <button type="button" disabled={busy} onClick={() => measure(true)}>
          {t('eval.train')}
        </button>
        <button type="button" disabled={busy || !stored} onClick={forget}>
          {t('eval.forget')}
        </button>
      </span>
      {busy && (
        <p role="status" className="muted">
          {t('eval.measuring')}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!stored && !report && <p className="muted">{t('eval.noRanker')}</p>}
      {stored && report?.saved && <p>{t('eval.saved', { when: formatDateTime(new Date(report.saved)) })}</p>}
      {report?.kept && <p>{t('eval.kept')}</p>}
      {report?.kept_document && <p>{t('eval.keptDocument')}</p>}
      {report && (
        <>
          <p className="muted">
            {t('eval.measured', { questions: report.held_questions, docs: report.held_documents, train: report.train_questions, pages: report.pages })}
          </p>
          {report.trained && (
            <p className="muted" data-testid="ranker-form">
              {t('eval.form', {
                library: t(report.choice.boosted ? 'eval.formTrees' : 'eval.formLinear'),
                document: t(report.choice_document.boosted ? 'eval.formTrees' : 'eval.formLinear'),
              })}
            </p>
          )}
          {report.visual && (
            <p className="muted" data-testid="ranker-vision">
              {t('eval.vision', { pages: report.visual.pages, written: report.visual.written, kept: report.visual.kept, held: report.visual.held })}
            </p>
          )}
          <table className="eval-list">
            <thead>
              <tr>
                <th />
                <th>{t('eval.colScope')}</th>
                <th>{t('eval.colRanker')}</th>
                <th>{t('eval.hit1')}</th>
                <th>{t('eval.hit5')}</th>
                <th>{t('eval.hit10')}</th>
                <th>{t('eval.mrr')}</th>
              </tr>
            </thead>
            <tbody>
              <PairRows name={t('eval.wholeLibrary')} p={report.library} />
              <PairRows name={t('eval.withinDocument')} p={report.within_document} />
            </tbody>
          </table>
        </>
      )}
    </section>
  )
}
