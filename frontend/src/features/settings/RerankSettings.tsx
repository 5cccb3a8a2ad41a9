import { useState } from 'react'
import { useTranslation } from '../../i18n'
import { formatNumber } from '../../lib/format'
import type { Provider, Rerank, RerankTest } from '../../lib/types'

const kinds = ['', 'endpoint', 'dashscope', 'chat'] as const

/** The provider kind a reranker kind needs; '' means any profile that can chat. */
function profileKind(kind: string): string {
  if (kind === 'endpoint') return 'openai'
  if (kind === 'dashscope') return 'dashscope'
  return ''
}

type Props = {
  value: Rerank
  providers: Provider[]
  onChange: (r: Rerank) => void
  test: (r: Rerank) => Promise<RerankTest>
}

/** RerankSettings picks the reranker that reorders every search's first-stage top pages, and tests it. */
export function RerankSettings({ value, providers, onChange, test }: Props) {
  const { t } = useTranslation()
  const [result, setResult] = useState<RerankTest | null>(null)
  const [busy, setBusy] = useState(false)
  const r = value
  const set = (patch: Partial<Rerank>) => {
    setResult(null)
    onChange({ ...r, ...patch })
  }
  const need = profileKind(r.kind)
  const profiles = providers.filter((p) => (need ? p.kind === need : p.kind !== 'builtin'))
  const run = async () => {
    setBusy(true)
    try {
      setResult(await test(r))
    } catch (e) {
      setResult({ reranker: '', ok: false, sensible: false, error: String(e), ms: 0 })
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="form-grid" data-testid="rerank-settings">
      <label htmlFor="rerank-kind">{t('rerank.kind')}</label>
      <select
        id="rerank-kind"
        value={r.kind}
        onChange={(e) => set({ kind: e.target.value, provider: '', model: '', images: false })}
      >
        {kinds.map((k) => (
          <option key={k} value={k}>
            {t(`rerank.kinds.${k || 'off'}`)}
          </option>
        ))}
      </select>
      {r.kind && (
        <>
          <label htmlFor="rerank-provider">{t('rerank.provider')}</label>
          <select id="rerank-provider" value={r.provider} onChange={(e) => set({ provider: e.target.value })}>
            <option value="">{t('rerank.providerDefault')}</option>
            {profiles.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
          <label htmlFor="rerank-model">{t('rerank.model')}</label>
          <input
            id="rerank-model"
            value={r.model}
            placeholder={t(`rerank.modelPlaceholder.${r.kind}`, { defaultValue: '' })}
            onChange={(e) => set({ model: e.target.value })}
          />
          <label htmlFor="rerank-candidates">{t('rerank.candidates')}</label>
          <input
            id="rerank-candidates"
            type="number"
            min={1}
            max={200}
            placeholder={r.kind === 'chat' ? '8' : '30'}
            value={r.candidates || ''}
            onChange={(e) => set({ candidates: Math.min(200, Math.max(0, Math.trunc(Number(e.target.value) || 0))) })}
          />
          {r.kind === 'endpoint' && (
            <>
              <label htmlFor="rerank-images">{t('rerank.images')}</label>
              <input id="rerank-images" type="checkbox" checked={r.images} onChange={(e) => set({ images: e.target.checked })} />
            </>
          )}
          <span />
          <span className="row">
            <button onClick={run} disabled={busy} data-testid="rerank-test">
              {busy ? t('rerank.testing') : t('rerank.test')}
            </button>
            {result && <RerankResult r={result} />}
          </span>
          <span />
          <p className="muted small">{t(r.kind === 'chat' ? 'rerank.chatNote' : 'rerank.note')}</p>
        </>
      )}
    </div>
  )
}

function RerankResult({ r }: { r: RerankTest }) {
  const { t } = useTranslation()
  if (!r.ok)
    return (
      <span className="error" role="status" data-testid="rerank-result">
        {r.error}
      </span>
    )
  return (
    <span className={r.sensible ? 'ok' : 'error'} role="status" title={r.reranker} data-testid="rerank-result">
      {t(r.sensible ? 'rerank.works' : 'rerank.oddOrder', { ms: formatNumber(r.ms, 0) })}
    </span>
  )
}
