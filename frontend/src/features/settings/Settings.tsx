import { useEffect, useState } from 'react'
import { backend, onPullProgress } from '../../lib/backend'
import { modes } from '../../lib/events'
import type { ModelInfo, Provider, ProviderResult, PullEvent, Settings as S } from '../../lib/types'
import { ModelCheck, ModelOptions } from './ModelTuning'

type Props = { dataDir: string; onSaved: (s: S) => void }

/** Settings: providers with model pickers filled from the server and a connection test; agent defaults; theme. */
export function Settings({ dataDir, onSaved }: Props) {
  const [s, setS] = useState<S | null>(null)
  const [msg, setMsg] = useState('')
  const [pull, setPull] = useState<PullEvent | null>(null)
  useEffect(() => {
    backend.settings().then(setS, (e: unknown) => setMsg(String(e)))
  }, [])
  useEffect(() => onPullProgress(setPull), [])
  if (!s) return <p className="muted">{msg || 'Loading settings…'}</p>

  const providers = s.providers ?? []
  const setProvider = (i: number, p: Provider) => setS({ ...s, providers: providers.map((x, j) => (j === i ? p : x)) })
  const save = async () => {
    try {
      await backend.saveSettings(s)
      setMsg('Saved.')
      onSaved(s)
    } catch (e) {
      setMsg(String(e))
    }
  }
  return (
    <div className="settings" data-testid="settings">
      <section>
        <h2>Model providers</h2>
        {providers.map((p, i) => (
          <ProviderCard key={p.name} p={p} mode={s.agent.mode} pull={pull} onChange={(np) => setProvider(i, np)} />
        ))}
      </section>
      <section>
        <h2>Agent defaults</h2>
        <div className="form-grid">
          <label htmlFor="def-provider">Provider</label>
          <select
            id="def-provider"
            value={s.agent.provider}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, provider: e.target.value } })}
          >
            {providers.map((p) => (
              <option key={p.name}>{p.name}</option>
            ))}
          </select>
          <label htmlFor="def-mode">Mode</label>
          <select id="def-mode" value={s.agent.mode} onChange={(e) => setS({ ...s, agent: { ...s.agent, mode: e.target.value } })}>
            {modes.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
          <label htmlFor="def-topk">Pages per search</label>
          <input
            id="def-topk"
            type="number"
            min={1}
            max={50}
            placeholder="mode's (vrag 10, vimrag 3)"
            value={s.agent.top_k || ''}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, top_k: Number(e.target.value) || 0 } })}
          />
          <label htmlFor="def-vrag-steps">VRAG steps (3–10)</label>
          <input
            id="def-vrag-steps"
            type="number"
            min={3}
            max={10}
            placeholder="10"
            value={s.agent.vrag_max_steps || ''}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, vrag_max_steps: Number(e.target.value) || 0 } })}
          />
          <label htmlFor="def-vimrag-steps">VimRAG steps (5–30)</label>
          <input
            id="def-vimrag-steps"
            type="number"
            min={5}
            max={30}
            placeholder="20"
            value={s.agent.vimrag_max_steps || ''}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, vimrag_max_steps: Number(e.target.value) || 0 } })}
          />
          <label htmlFor="def-think">Thinking</label>
          <input
            id="def-think"
            type="checkbox"
            checked={s.agent.think}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, think: e.target.checked } })}
          />
          <label htmlFor="def-followups">Follow-up questions</label>
          <select
            id="def-followups"
            value={s.agent.follow_ups === 'off' ? 'off' : 'rewrite'}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, follow_ups: e.target.value } })}
          >
            <option value="rewrite">Understand from the conversation (one extra model call)</option>
            <option value="off">Send as asked</option>
          </select>
        </div>
      </section>
      <section>
        <h2>Appearance and data</h2>
        <div className="form-grid">
          <label htmlFor="theme">Theme</label>
          <select id="theme" value={s.theme || 'system'} onChange={(e) => setS({ ...s, theme: e.target.value })}>
            <option value="system">Follow the system</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
          <label htmlFor="cache-pages">Page cache for VRAG clients (MB)</label>
          <input
            id="cache-pages"
            type="number"
            min={0}
            value={s.cache?.pages_mb || ''}
            placeholder="2048"
            onChange={(e) => setS({ ...s, cache: { ...s.cache, pages_mb: Math.max(0, Math.trunc(Number(e.target.value) || 0)) } })}
          />
          <span>Data directory</span>
          <code data-testid="data-dir">{dataDir}</code>
        </div>
        <p className="muted small">Start Proofglass with --data DIR (or PROOFGLASS_DATA) to use another data directory.</p>
      </section>
      <div className="row">
        <button className="primary" onClick={save}>
          Save settings
        </button>
        <span role="status" className="muted">
          {msg}
        </span>
      </div>
    </div>
  )
}

function ProviderCard({ p, mode, pull, onChange }: { p: Provider; mode: string; pull: PullEvent | null; onChange: (p: Provider) => void }) {
  const [models, setModels] = useState<ModelInfo[] | null>(null)
  const [result, setResult] = useState<ProviderResult | null>(null)
  const [busy, setBusy] = useState(false)
  const [key, setKey] = useState('')
  const [keyMsg, setKeyMsg] = useState('')

  const test = async () => {
    setBusy(true)
    try {
      // A key typed and not yet saved is tried as given; else the backend uses the stored key for the saved URL only.
      const r = await backend.testProvider(p, key)
      setResult(r)
      if (r.reachable) setModels(await backend.listModels(p, key).catch(() => []))
    } finally {
      setBusy(false)
    }
  }
  // Only vision models can read pages; servers that report no capabilities get every non-embedding model.
  const all = models ?? []
  const chatModels = all.some((m) => m.vision) ? all.filter((m) => m.vision) : all.filter((m) => !m.embedding)
  const embedModels = (models ?? []).filter((m) => m.embedding)
  const id = `prov-${p.name}`
  return (
    <div className="card provider" data-testid="provider" data-name={p.name}>
      <div className="card-title">
        {p.name} <span className="muted">({p.kind})</span>
      </div>
      <div className="form-grid">
        <label htmlFor={id + '-url'}>Server URL</label>
        <input id={id + '-url'} value={p.base_url} onChange={(e) => onChange({ ...p, base_url: e.target.value })} />
        <label htmlFor={id + '-chat'}>Chat model (vision)</label>
        <ModelPicker id={id + '-chat'} value={p.chat_model} options={models ? chatModels : null} onChange={(v) => onChange({ ...p, chat_model: v })} />
        <label htmlFor={id + '-embed'}>Embedding model</label>
        <ModelPicker id={id + '-embed'} value={p.embed_model} options={models ? embedModels : null} onChange={(v) => onChange({ ...p, embed_model: v })} />
        {p.kind !== 'builtin' && <ModelOptions p={p} onChange={onChange} />}
        {p.kind !== 'ollama' && (
          <>
            <label htmlFor={id + '-key'}>API key</label>
            <span className="row">
              <input id={id + '-key'} type="password" value={key} onChange={(e) => setKey(e.target.value)} placeholder="stored in the OS keyring" />
              <button
                disabled={!key}
                onClick={() =>
                  backend.setAPIKey(p.name, key).then(
                    () => {
                      setKey('')
                      setKeyMsg('Key saved.')
                    },
                    (e: unknown) => setKeyMsg(String(e)),
                  )
                }
              >
                Save key
              </button>
              <span className="muted small">{keyMsg}</span>
            </span>
          </>
        )}
      </div>
      <div className="row">
        <button onClick={test} disabled={busy} data-testid="test-connection">
          {busy ? 'Testing…' : 'Test connection'}
        </button>
        {result && <TestResult r={result} />}
      </div>
      {p.kind !== 'builtin' && (
        <ModelCheck p={p} mode={mode} probe={backend.probeModel} pull={backend.pullModel} progress={pull} />
      )}
    </div>
  )
}

function ModelPicker(props: { id: string; value: string; options: ModelInfo[] | null; onChange: (v: string) => void }) {
  if (!props.options) {
    return <input id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)} placeholder="test the connection to list models" />
  }
  const names = props.options.map((m) => m.name)
  return (
    <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
      <option value="">(none)</option>
      {props.value && !names.includes(props.value) && <option value={props.value}>{props.value} (not on server)</option>}
      {props.options.map((m) => (
        <option key={m.name} value={m.name}>
          {m.name}
          {m.thinking ? ' · thinking' : ''}
          {m.tools ? ' · tools' : ''}
        </option>
      ))}
    </select>
  )
}

function TestResult({ r }: { r: ProviderResult }) {
  const ok = r.reachable && !r.error && r.chat_model_found !== false && r.embed_model_found !== false
  return (
    <span className={ok ? 'ok' : 'error'} data-testid="test-result" role="status">
      {r.reachable ? `Connected${r.version ? ` (v${r.version})` : ''} · ${r.models} models · ${r.latency_ms} ms` : 'Not reachable'}
      {r.chat_model_found === false && ` · chat model ${r.chat_model} not found`}
      {r.embed_model_found === false && ` · embedding model ${r.embed_model} not found`}
      {r.error && ` · ${r.error}`}
    </span>
  )
}
