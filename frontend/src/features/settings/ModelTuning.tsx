import { useEffect, useState } from 'react'
import type { ProbeResult, Provider, PullEvent, Sampling } from '../../lib/types'

/** optNumber reads an optional number field: empty means "not set". */
function optNumber(v: string): number | undefined {
  if (v.trim() === '') return undefined
  const n = Number(v)
  return Number.isFinite(n) ? n : undefined
}

/** ModelOptions edits a profile's context window and sampling; empty fields keep the agent mode's defaults. */
export function ModelOptions({ p, onChange }: { p: Provider; onChange: (p: Provider) => void }) {
  const id = `prov-${p.name}`
  const s: Sampling = p.sampling ?? {}
  const setS = (patch: Partial<Sampling>) => onChange({ ...p, sampling: { ...s, ...patch } })
  const field = (key: keyof Sampling, label: string, step: string) => (
    <>
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
        id={`${id}-${key}`}
        type="number"
        step={step}
        placeholder="mode's default"
        value={s[key] ?? ''}
        onChange={(e) => setS({ [key]: optNumber(e.target.value) })}
      />
    </>
  )
  return (
    <>
      <label htmlFor={`${id}-ctx`}>Context length</label>
      <span className="row">
        <input
          id={`${id}-ctx`}
          type="number"
          min={-1}
          step={1024}
          value={p.context_length ?? 0}
          onChange={(e) => onChange({ ...p, context_length: optNumber(e.target.value) ?? 0 })}
        />
        <span className="muted small">{contextNote(p.context_length ?? 0, p.kind)}</span>
      </span>
      {field('temperature', 'Temperature', '0.05')}
      {field('top_p', 'Top p', '0.05')}
      {field('max_tokens', 'Max tokens per reply', '256')}
      {field('seed', 'Seed', '1')}
    </>
  )
}

function contextNote(n: number, kind: string): string {
  if (kind !== 'ollama') return 'fixed by the server (vLLM --max-model-len); Proofglass warns when a run may not fit'
  if (n === 0) return 'sized for each run (num_ctx), up to what the model supports'
  if (n < 0) return "none sent: the server's default (often 4096, which cuts VRAG runs)"
  return `num_ctx ${n} on every call`
}

type CheckProps = {
  p: Provider
  mode: string
  probe: (p: Provider, model: string, mode: string) => Promise<ProbeResult[]>
  pull?: (p: Provider, name: string) => Promise<void>
  progress?: PullEvent | null
}

/** ModelCheck probes the profile's chat model for what the agent mode needs, and (Ollama) pulls a model. */
export function ModelCheck({ p, mode, probe, pull, progress }: CheckProps) {
  const [results, setResults] = useState<ProbeResult[] | null>(null)
  const [busy, setBusy] = useState(false)
  const [err, setErr] = useState('')
  const [name, setName] = useState(p.chat_model)
  const [pulling, setPulling] = useState(false)
  useEffect(() => setName(p.chat_model), [p.chat_model])
  const check = async () => {
    setBusy(true)
    setErr('')
    try {
      setResults(await probe(p, p.chat_model, mode))
    } catch (e) {
      setErr(String(e))
    } finally {
      setBusy(false)
    }
  }
  const doPull = async () => {
    if (!pull) return
    setPulling(true)
    setErr('')
    try {
      await pull(p, name)
    } catch (e) {
      setErr(String(e))
    } finally {
      setPulling(false)
    }
  }
  const mine = progress && progress.provider === p.name && progress.model === name ? progress : null
  const pct = mine?.total ? Math.floor(((mine.completed ?? 0) * 100) / mine.total) : null
  return (
    <div className="model-check">
      <div className="row">
        <button disabled={busy || !p.chat_model} onClick={check}>
          {busy ? 'Checking…' : `Check model for ${mode}`}
        </button>
        {pull && p.kind === 'ollama' && (
          <>
            <input aria-label={`Model to pull on ${p.name}`} value={name} onChange={(e) => setName(e.target.value)} placeholder="qwen2.5vl:7b" />
            <button disabled={pulling || !name.trim()} onClick={doPull}>
              {pulling ? 'Pulling…' : 'Pull'}
            </button>
          </>
        )}
      </div>
      {mine && (
        <div role="status" data-testid="pull-progress" className="muted small">
          {mine.error ? `pull failed: ${mine.error}` : mine.status}
          {pct !== null && !mine.done && (
            <>
              {' '}
              <progress max={100} value={pct} /> {pct}%
            </>
          )}
        </div>
      )}
      {err && (
        <p role="alert" className="error">
          {err}
        </p>
      )}
      {results && (
        <ul className="probe-results" data-testid="probe-results">
          {results.map((r) => (
            <li key={r.name} className={r.ok ? 'ok' : r.optional || r.skipped ? 'warn' : 'error'}>
              <strong>{r.name}</strong> {r.ok ? '✓' : r.skipped ? '–' : '✗'} {r.detail}
              {!r.ok && r.fix && <div className="small">fix: {r.fix}</div>}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
