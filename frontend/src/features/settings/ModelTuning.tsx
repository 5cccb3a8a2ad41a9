import { useEffect, useState } from 'react'
import { t as translate, useTranslation } from '../../i18n'
import type { ProbeResult, Provider, PullEvent, Sampling } from '../../lib/types'

/** optNumber reads an optional number field: empty means "not set". */
function optNumber(v: string): number | undefined {
  if (v.trim() === '') return undefined
  const n = Number(v)
  return Number.isFinite(n) ? n : undefined
}

/** ModelOptions edits a profile's context window and sampling; empty fields keep the agent mode's defaults. */
export function ModelOptions({ p, onChange }: { p: Provider; onChange: (p: Provider) => void }) {
  const { t } = useTranslation()
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
        placeholder={t('tuning.modeDefault')}
        value={s[key] ?? ''}
        onChange={(e) => setS({ [key]: optNumber(e.target.value) })}
      />
    </>
  )
  return (
    <>
      <label htmlFor={`${id}-ctx`}>{t('tuning.contextLength')}</label>
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
      {field('temperature', t('tuning.temperature'), '0.05')}
      {field('top_p', t('tuning.topP'), '0.05')}
      {field('max_tokens', t('tuning.maxTokens'), '256')}
      {field('seed', t('tuning.seed'), '1')}
    </>
  )
}

function contextNote(n: number, kind: string): string {
  if (kind !== 'ollama') return translate('tuning.ctxFixed')
  if (n === 0) return translate('tuning.ctxSized')
  if (n < 0) return translate('tuning.ctxNone')
  return translate('tuning.ctxFixedN', { n })
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
  const { t } = useTranslation()
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
          {busy ? t('tuning.checking') : t('tuning.checkModel', { mode })}
        </button>
        {pull && p.kind === 'ollama' && (
          <>
            <input aria-label={t('tuning.modelToPull', { name: p.name })} value={name} onChange={(e) => setName(e.target.value)} placeholder="qwen2.5vl:7b" />
            <button disabled={pulling || !name.trim()} onClick={doPull}>
              {pulling ? t('tuning.pulling') : t('tuning.pull')}
            </button>
          </>
        )}
      </div>
      {mine && (
        <div role="status" data-testid="pull-progress" className="muted small">
          {mine.error ? t('tuning.pullFailed', { error: mine.error }) : mine.status}
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
              <strong>{t(`tuning.check.${r.name}`, { defaultValue: r.name })}</strong> {r.ok ? '✓' : r.skipped ? '–' : '✗'} {r.detail}
              {!r.ok && r.fix && <div className="small">{t('tuning.fix', { fix: r.fix })}</div>}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
