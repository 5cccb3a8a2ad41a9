import { useCallback, useEffect, useRef, useState } from 'react'
import { t as translate, useTranslation } from '../../i18n'
import { evalApi, type EvalApi, type EvalState, type EvaluationRow } from './api'

const modes = ['vrag', 'vimrag', 'vanilla', 'react']

type Props = {
  collections: string[]
  api?: EvalApi
}

/** eta formats the time left from the pace since start (only items run in this session count). */
export function eta(s: EvalState, startedAt: number, now: number, doneAtStart: number): string {
  const ran = s.done - doneAtStart
  if (!s.running || ran <= 0 || s.total <= s.done) return ''
  const left = ((now - startedAt) / ran) * (s.total - s.done)
  const sec = Math.round(left / 1000)
  return sec >= 60 ? translate('eval.minutesLeft', { m: Math.floor(sec / 60), s: sec % 60 }) : translate('eval.secondsLeft', { s: sec })
}

/** Evaluation runs the agent on a questions file and scores the answers, as `proofglass eval answers` does. */
export function Evaluation({ collections, api = evalApi }: Props) {
  const { t } = useTranslation()
  const [dataset, setDataset] = useState('')
  const [collection, setCollection] = useState(collections[0] ?? '')
  const [mode, setMode] = useState('vrag')
  const [provider, setProvider] = useState('')
  const [model, setModel] = useState('')
  const [judgeModel, setJudgeModel] = useState('')
  const [samples, setSamples] = useState(1)
  const [limit, setLimit] = useState(0)
  const [state, setState] = useState<EvalState | null>(null)
  const [error, setError] = useState('')
  const [rows, setRows] = useState<EvaluationRow[]>([])
  const [reportPath, setReportPath] = useState('')
  const started = useRef<{ at: number; done: number } | null>(null)

  const reload = useCallback(() => {
    api.evaluations().then(setRows, (e: unknown) => setError(String(e)))
  }, [api])

  useEffect(() => {
    if (!collection && collections.length > 0) setCollection(collections[0])
  }, [collections, collection])

  useEffect(() => {
    reload()
    api.state().then(setState, () => {})
    return api.onProgress((s) => {
      if (started.current === null && s.running) started.current = { at: Date.now(), done: s.done }
      setState(s)
      if (!s.running) {
        started.current = null
        if (s.error) setError(s.error)
        reload()
      }
    })
  }, [api, reload])

  const start = () => {
    setError('')
    setReportPath('')
    started.current = null
    api
      .start({ dataset, collection, mode, provider, model, judge_provider: judgeModel ? provider : '', judge_model: judgeModel, samples, limit })
      .then(() => setState({ running: true, evaluation: 0, done: 0, total: 0, resumed: 0 }), (e: unknown) => setError(String(e)))
  }
  const open = (id: number) => {
    api.openReport(id).then(setReportPath, (e: unknown) => setError(String(e)))
  }
  const running = state?.running ?? false
  const pct = state && state.total > 0 ? Math.round((100 * state.done) / state.total) : 0
  const left = state && started.current ? eta(state, started.current.at, Date.now(), started.current.done) : ''

  return (
    <section className="eval" aria-label={t('eval.section')}>
      <form
        className="eval-form"
        onSubmit={(e) => {
          e.preventDefault()
          start()
        }}
      >
        <label className="wide">
          {t('eval.questionsFile')}
          <span className="row">
            <input value={dataset} onChange={(e) => setDataset(e.target.value)} placeholder="questions.jsonl" />
            <button type="button" onClick={() => api.pickDataset().then((p) => p && setDataset(p), (e: unknown) => setError(String(e)))}>
              {t('common.choose')}
            </button>
          </span>
        </label>
        <label>
          {t('eval.collection')}
          <select value={collection} onChange={(e) => setCollection(e.target.value)}>
            {collections.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label>
          {t('eval.mode')}
          <select value={mode} onChange={(e) => setMode(e.target.value)}>
            {modes.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          {t('eval.provider')}
          <input value={provider} onChange={(e) => setProvider(e.target.value)} placeholder={t('eval.fromSettings')} />
        </label>
        <label>
          {t('eval.model')}
          <input value={model} onChange={(e) => setModel(e.target.value)} placeholder={t('eval.fromSettings')} />
        </label>
        <label>
          {t('eval.judgeModel')}
          <input value={judgeModel} onChange={(e) => setJudgeModel(e.target.value)} placeholder={t('eval.judgePlaceholder')} />
        </label>
        <label>
          {t('eval.samples')}
          <input type="number" min={1} max={64} value={samples} onChange={(e) => setSamples(Number(e.target.value) || 1)} />
        </label>
        <label>
          {t('eval.limit')}
          <input type="number" min={0} value={limit} onChange={(e) => setLimit(Number(e.target.value) || 0)} />
        </label>
        <span className="row">
          <button type="submit" disabled={running || !dataset || !collection}>
            {t('eval.evaluate')}
          </button>
          <button type="button" disabled={!running} onClick={() => api.stop()}>
            {t('common.stop')}
          </button>
        </span>
      </form>
      {state && (state.running || state.total > 0) && (
        <div className="eval-progress" role="status">
          <progress max={100} value={pct} aria-label={t('eval.progress')} />
          <span>
            {t('eval.scored', { done: state.done, total: state.total })}
            {state.resumed > 0 ? ` ${t('eval.resumed', { count: state.resumed })}` : ''}
            {left ? ` · ${left}` : ''}
          </span>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {reportPath && <p className="muted">{t('eval.reportWritten', { path: reportPath })}</p>}
      {rows.length === 0 && <p className="muted">{t('eval.none')}</p>}
      {rows.length > 0 && (
        <table className="eval-list">
          <thead>
            <tr>
              <th>#</th>
              <th>{t('eval.colStatus')}</th>
              <th>{t('eval.colScored')}</th>
              <th>{t('eval.colCollection')}</th>
              <th>{t('eval.colDataset')}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>{r.id}</td>
                <td>{r.status}</td>
                <td>{r.items}</td>
                <td>{r.collection}</td>
                <td title={r.dataset}>{r.dataset.split('/').pop()}</td>
                <td>
                  <button type="button" disabled={r.items === 0} onClick={() => open(r.id)}>
                    {t('eval.openReport')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
