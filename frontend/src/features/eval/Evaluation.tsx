import { useCallback, useEffect, useRef, useState } from 'react'
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
  return sec >= 60 ? `${Math.floor(sec / 60)} min ${sec % 60} s left` : `${sec} s left`
}

/** Evaluation runs the agent on a questions file and scores the answers, as `proofglass eval answers` does. */
export function Evaluation({ collections, api = evalApi }: Props) {
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
    <section className="eval" aria-label="Answer evaluation">
      <form
        className="eval-form"
        onSubmit={(e) => {
          e.preventDefault()
          start()
        }}
      >
        <label className="wide">
          Questions file
          <span className="row">
            <input value={dataset} onChange={(e) => setDataset(e.target.value)} placeholder="questions.jsonl" />
            <button type="button" onClick={() => api.pickDataset().then((p) => p && setDataset(p), (e: unknown) => setError(String(e)))}>
              Choose…
            </button>
          </span>
        </label>
        <label>
          Collection
          <select value={collection} onChange={(e) => setCollection(e.target.value)}>
            {collections.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.target.value)}>
            {modes.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          Provider
          <input value={provider} onChange={(e) => setProvider(e.target.value)} placeholder="from settings" />
        </label>
        <label>
          Model
          <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="from settings" />
        </label>
        <label>
          Judge model
          <input value={judgeModel} onChange={(e) => setJudgeModel(e.target.value)} placeholder="none: rule-based verdict" />
        </label>
        <label>
          Samples per question
          <input type="number" min={1} max={64} value={samples} onChange={(e) => setSamples(Number(e.target.value) || 1)} />
        </label>
        <label>
          Only the first N questions
          <input type="number" min={0} value={limit} onChange={(e) => setLimit(Number(e.target.value) || 0)} />
        </label>
        <span className="row">
          <button type="submit" disabled={running || !dataset || !collection}>
            Evaluate
          </button>
          <button type="button" disabled={!running} onClick={() => api.stop()}>
            Stop
          </button>
        </span>
      </form>
      {state && (state.running || state.total > 0) && (
        <div className="eval-progress" role="status">
          <progress max={100} value={pct} aria-label="Evaluation progress" />
          <span>
            {state.done}/{state.total} answers scored{state.resumed > 0 ? ` (${state.resumed} resumed)` : ''}
            {left ? ` · ${left}` : ''}
          </span>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {reportPath && <p className="muted">Report written to {reportPath}</p>}
      {rows.length === 0 && <p className="muted">No evaluations yet: choose a questions file (JSON lines) and a collection.</p>}
      {rows.length > 0 && (
        <table className="eval-list">
          <thead>
            <tr>
              <th>#</th>
              <th>status</th>
              <th>scored</th>
              <th>collection</th>
              <th>dataset</th>
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
                    Open report
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
