import { useEffect, useState } from 'react'
import { onPullProgress, settingsApi } from './api'
import { chooseLanguage, i18n, storedChoice, useTranslation, type LanguageChoice } from '../../i18n'
import { modes } from '../../lib/events'
import type { ModelInfo, Provider, ProviderResult, PullEvent, Settings as S } from '../../lib/types'
import { ModelCheck, ModelOptions } from './ModelTuning'
import { RerankSettings } from './RerankSettings'

type Props = { dataDir: string; onSaved: (s: S) => void }

/** Settings: providers with model pickers filled from the server and a connection test; agent defaults; theme. */
export function Settings({ dataDir, onSaved }: Props) {
  const { t } = useTranslation()
  const [lang, setLang] = useState<LanguageChoice>(storedChoice)
  const [s, setS] = useState<S | null>(null)
  const [msg, setMsg] = useState('')
  const [pull, setPull] = useState<PullEvent | null>(null)
  useEffect(() => {
    settingsApi.settings().then(setS, (e: unknown) => setMsg(String(e)))
  }, [])
  useEffect(() => onPullProgress(setPull), [])
  if (!s) return <p className="muted">{msg || t('settings.loading')}</p>

  const providers = s.providers ?? []
  const setProvider = (i: number, p: Provider) => setS({ ...s, providers: providers.map((x, j) => (j === i ? p : x)) })
  const save = async () => {
    try {
      await settingsApi.saveSettings(s)
      setMsg(t('settings.saved'))
      onSaved(s)
    } catch (e) {
      setMsg(String(e))
    }
  }
  return (
    <div className="settings" data-testid="settings">
      <section>
        <h2>{t('settings.providers')}</h2>
        {providers.map((p, i) => (
          <ProviderCard key={p.name} p={p} mode={s.agent.mode} pull={pull} onChange={(np) => setProvider(i, np)} />
        ))}
      </section>
      <section>
        <h2>{t('settings.agentDefaults')}</h2>
        <div className="form-grid">
          <label htmlFor="def-provider">{t('settings.provider')}</label>
          <select
            id="def-provider"
            value={s.agent.provider}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, provider: e.target.value } })}
          >
            {providers.map((p) => (
              <option key={p.name}>{p.name}</option>
            ))}
          </select>
          <label htmlFor="def-mode">{t('settings.mode')}</label>
          <select id="def-mode" value={s.agent.mode} onChange={(e) => setS({ ...s, agent: { ...s.agent, mode: e.target.value } })}>
            {modes.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
          <label htmlFor="def-topk">{t('settings.topK')}</label>
          <input
            id="def-topk"
            type="number"
            min={1}
            max={50}
            placeholder={t('settings.topKPlaceholder')}
            value={s.agent.top_k || ''}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, top_k: Number(e.target.value) || 0 } })}
          />
          <label htmlFor="def-vrag-steps">{t('settings.vragSteps')}</label>
          <input
            id="def-vrag-steps"
            type="number"
            min={3}
            max={10}
            placeholder="10"
            value={s.agent.vrag_max_steps || ''}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, vrag_max_steps: Number(e.target.value) || 0 } })}
          />
          <label htmlFor="def-vimrag-steps">{t('settings.vimragSteps')}</label>
          <input
            id="def-vimrag-steps"
            type="number"
            min={5}
            max={30}
            placeholder="20"
            value={s.agent.vimrag_max_steps || ''}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, vimrag_max_steps: Number(e.target.value) || 0 } })}
          />
          <label htmlFor="def-think">{t('settings.thinking')}</label>
          <input
            id="def-think"
            type="checkbox"
            checked={s.agent.think}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, think: e.target.checked } })}
          />
          <label htmlFor="def-followups">{t('settings.followUps')}</label>
          <select
            id="def-followups"
            value={s.agent.follow_ups === 'off' ? 'off' : 'rewrite'}
            onChange={(e) => setS({ ...s, agent: { ...s.agent, follow_ups: e.target.value } })}
          >
            <option value="rewrite">{t('settings.followUpsRewrite')}</option>
            <option value="off">{t('settings.followUpsOff')}</option>
          </select>
          <label htmlFor="def-summarize-after">{t('settings.summarizeAfter')}</label>
          <span className="row">
            <input
              id="def-summarize-after"
              type="checkbox"
              checked={s.ingest?.summarize_after ?? false}
              onChange={(e) => setS({ ...s, ingest: { ...s.ingest, summarize_after: e.target.checked } })}
            />
            <span className="muted small">{t('settings.summarizeAfterNote')}</span>
          </span>
        </div>
      </section>
      <section>
        <h2>{t('rerank.title')}</h2>
        <RerankSettings
          value={s.rerank ?? { kind: '', provider: '', model: '', candidates: 0, images: false }}
          providers={providers}
          onChange={(r) => setS({ ...s, rerank: r })}
          test={settingsApi.testReranker}
        />
      </section>
      <section>
        <h2>{t('settings.appearance')}</h2>
        <div className="form-grid">
          <label htmlFor="language">{t('language.label')}</label>
          <span className="row">
            <select
              id="language"
              value={lang}
              onChange={(e) => {
                const v = e.target.value
                const choice: LanguageChoice = v === 'en' || v === 'zh-CN' ? v : 'auto'
                setLang(choice)
                void chooseLanguage(choice)
              }}
            >
              <option value="auto">{t('language.auto')}</option>
              <option value="en">{t('language.en')}</option>
              <option value="zh-CN">{t('language.zh-CN')}</option>
            </select>
            <span className="muted small">{t('language.note')}</span>
          </span>
          <label htmlFor="theme">{t('settings.theme')}</label>
          <select id="theme" value={s.theme || 'system'} onChange={(e) => setS({ ...s, theme: e.target.value })}>
            <option value="system">{t('settings.themeSystem')}</option>
            <option value="light">{t('settings.themeLight')}</option>
            <option value="dark">{t('settings.themeDark')}</option>
          </select>
          <label htmlFor="cache-pages">{t('settings.pageCache')}</label>
          <input
            id="cache-pages"
            type="number"
            min={0}
            value={s.cache?.pages_mb || ''}
            placeholder="2048"
            onChange={(e) => setS({ ...s, cache: { ...s.cache, pages_mb: Math.max(0, Math.trunc(Number(e.target.value) || 0)) } })}
          />
          <label htmlFor="cache-lease">{t('settings.pageLease')}</label>
          <span className="row">
            <input
              id="cache-lease"
              type="number"
              min={0}
              max={10080}
              value={s.cache?.pages_lease_minutes || ''}
              placeholder="30"
              onChange={(e) =>
                setS({ ...s, cache: { ...s.cache, pages_lease_minutes: Math.min(10080, Math.max(0, Math.trunc(Number(e.target.value) || 0))) } })
              }
            />
            <span className="muted small">{t('settings.pageLeaseNote')}</span>
          </span>
          <span />
          <label className="row">
            <input
              type="checkbox"
              checked={s.cache?.pages_group_readable ?? false}
              onChange={(e) => setS({ ...s, cache: { ...s.cache, pages_group_readable: e.target.checked } })}
            />
            {t('settings.pageGroupReadable')}
          </label>
          <span>{t('settings.dataDir')}</span>
          <code data-testid="data-dir">{dataDir}</code>
        </div>
        <p className="muted small">{t('settings.dataDirNote')}</p>
      </section>
      <div className="row">
        <button className="primary" onClick={save}>
          {t('settings.save')}
        </button>
        <span role="status" className="muted">
          {msg}
        </span>
      </div>
    </div>
  )
}

function ProviderCard({ p, mode, pull, onChange }: { p: Provider; mode: string; pull: PullEvent | null; onChange: (p: Provider) => void }) {
  const { t } = useTranslation()
  const [models, setModels] = useState<ModelInfo[] | null>(null)
  const [result, setResult] = useState<ProviderResult | null>(null)
  const [busy, setBusy] = useState(false)
  const [key, setKey] = useState('')
  const [keyMsg, setKeyMsg] = useState('')

  const test = async () => {
    setBusy(true)
    try {
      // A key typed and not yet saved is tried as given; else the backend uses the stored key for the saved URL only.
      const r = await settingsApi.testProvider(p, key)
      setResult(r)
      if (r.reachable) setModels(await settingsApi.listModels(p, key).catch(() => []))
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
        <label htmlFor={id + '-url'}>{t('settings.serverURL')}</label>
        <input id={id + '-url'} value={p.base_url} onChange={(e) => onChange({ ...p, base_url: e.target.value })} />
        <label htmlFor={id + '-chat'}>{t('settings.chatModel')}</label>
        <ModelPicker id={id + '-chat'} value={p.chat_model} options={models ? chatModels : null} onChange={(v) => onChange({ ...p, chat_model: v })} />
        <label htmlFor={id + '-embed'}>{t('settings.embedModel')}</label>
        <ModelPicker id={id + '-embed'} value={p.embed_model} options={models ? embedModels : null} onChange={(v) => onChange({ ...p, embed_model: v })} />
        {p.kind !== 'builtin' && <ModelOptions p={p} onChange={onChange} />}
        {p.kind !== 'ollama' && (
          <>
            <label htmlFor={id + '-key'}>{t('settings.apiKey')}</label>
            <span className="row">
              <input id={id + '-key'} type="password" value={key} onChange={(e) => setKey(e.target.value)} placeholder={t('settings.apiKeyPlaceholder')} />
              <button
                disabled={!key}
                onClick={() =>
                  settingsApi.setAPIKey(p.name, key).then(
                    () => {
                      setKey('')
                      setKeyMsg(t('settings.keySaved'))
                    },
                    (e: unknown) => setKeyMsg(String(e)),
                  )
                }
              >
                {t('settings.saveKey')}
              </button>
              <span className="muted small">{keyMsg}</span>
            </span>
          </>
        )}
      </div>
      <div className="row">
        <button onClick={test} disabled={busy} data-testid="test-connection">
          {busy ? t('settings.testing') : t('settings.testConnection')}
        </button>
        {result && <TestResult r={result} />}
      </div>
      {p.kind !== 'builtin' && (
        <ModelCheck p={p} mode={mode} probe={settingsApi.probeModel} pull={settingsApi.pullModel} progress={pull} />
      )}
    </div>
  )
}

function ModelPicker(props: { id: string; value: string; options: ModelInfo[] | null; onChange: (v: string) => void }) {
  const { t } = useTranslation()
  if (!props.options) {
    return <input id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)} placeholder={t('settings.listModelsPlaceholder')} />
  }
  const names = props.options.map((m) => m.name)
  return (
    <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
      <option value="">{t('common.none')}</option>
      {props.value && !names.includes(props.value) && <option value={props.value}>{t('settings.notOnServer', { name: props.value })}</option>}
      {props.options.map((m) => (
        <option key={m.name} value={m.name}>
          {m.name}
          {m.thinking ? ` · ${t('settings.modelThinking')}` : ''}
          {m.tools ? ` · ${t('settings.modelTools')}` : ''}
        </option>
      ))}
    </select>
  )
}

function TestResult({ r }: { r: ProviderResult }) {
  const { t } = useTranslation()
  const ok = r.reachable && !r.error && r.chat_model_found !== false && r.embed_model_found !== false
  return (
    <span className={ok ? 'ok' : 'error'} data-testid="test-result" role="status">
      {r.reachable
        ? [
            r.version ? t('settings.connectedVersion', { version: r.version }) : t('settings.connected'),
            t('settings.models', { count: r.models }),
            t('settings.latency', { ms: r.latency_ms }),
          ].join(' · ')
        : t('settings.notReachable')}
      {r.chat_model_found === false && ` · ${t('settings.chatModelMissing', { name: r.chat_model })}`}
      {r.embed_model_found === false && ` · ${t('settings.embedModelMissing', { name: r.embed_model })}`}
      {r.error && ' · '}
      {r.error && (r.reason && i18n.exists(`backend.model.${r.reason}`) ? <span title={r.error}>{t(`backend.model.${r.reason}`)}</span> : r.error)}
    </span>
  )
}
