import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { vi } from 'vitest'
import type { Provider, ProviderResult, Rerank, RerankTest, Settings as S } from '../../lib/types'

const settings: S = {
  version: 1,
  providers: [
    { name: 'ollama', kind: 'ollama', base_url: 'http://127.0.0.1:11434', chat_model: 'qwen2.5vl', embed_model: '', sampling: {} },
    { name: 'dashscope', kind: 'dashscope', base_url: 'https://dashscope.aliyuncs.com/compatible-mode/v1', chat_model: 'qwen-vl-max', embed_model: '', sampling: {} },
  ],
  agent: { provider: 'ollama', mode: 'vrag', think: false, top_k: 5 },
  ingest: { ocr_languages: ['eng'], clip_seconds: 60, workers: 0, transcription: { provider: '', model: '' } },
  theme: 'system',
  cache: { pages_mb: 0, pages_lease_minutes: 0, pages_group_readable: false },
  rerank: { kind: '', provider: '', model: '', candidates: 0, images: false },
}

const calls = vi.hoisted(() => ({
  test: [] as [unknown, string][],
  saved: [] as unknown[],
  keys: [] as [string, string][],
  rerank: [] as unknown[],
  settings: null as S | null, // what the backend holds, when a test sets it
}))

vi.mock('./api', () => ({
  settingsApi: {
    settings: () => Promise.resolve(structuredClone(calls.settings ?? settings)),
    saveSettings: (s: S) => {
      calls.saved.push(structuredClone(s))
      return Promise.resolve()
    },
    setAPIKey: (profile: string, key: string) => {
      calls.keys.push([profile, key])
      return Promise.resolve()
    },
    testProvider: (p: Provider, key: string) => {
      calls.test.push([structuredClone(p), key])
      const r: ProviderResult = { name: p.name, kind: p.kind, base_url: p.base_url, reachable: false, models: 0, latency_ms: 1,
        error: 'list models at http://127.0.0.1:9/v1: dial tcp 127.0.0.1:9: connect: connection refused', reason: 'unreachable' } as ProviderResult
      return Promise.resolve(r)
    },
    listModels: () => Promise.resolve([]),
    probeModel: () => Promise.resolve([]),
    pullModel: () => Promise.resolve(),
    testReranker: (r: Rerank) => {
      calls.rerank.push(structuredClone(r))
      const res: RerankTest = r.model === 'down'
        ? { reranker: 'rerank endpoint down', ok: false, sensible: false, error: 'rerank endpoint down at http://127.0.0.1:8001/v1/rerank: connection refused', ms: 1 }
        : { reranker: 'rerank endpoint ' + r.model, ok: true, sensible: true, ms: 12 }
      return Promise.resolve(res)
    },
  },
  onPullProgress: () => () => {},
}))

import { Settings } from './Settings'

describe('Settings', () => {
  it('tries a typed key without saving it, stores a key write-only, and saves only what was edited', async () => {
    render(<Settings dataDir="/data" onSaved={() => {}} />)
    const key = await screen.findByLabelText('API key')
    const card = key.closest('[data-testid="provider"]') as HTMLElement
    expect(card.dataset.name).toBe('dashscope')

    // A typed, unsaved key goes with the test (the backend uses the stored one only for the saved URL).
    fireEvent.change(key, { target: { value: 'sk-typed' } })
    fireEvent.click(card.querySelector('[data-testid="test-connection"]') as HTMLElement)
    await waitFor(() => expect(calls.test).toHaveLength(1))
    expect(calls.test[0][1]).toBe('sk-typed')
    expect(calls.test[0][0]).not.toHaveProperty('api_key')
    // A failure says why in the window's words, the backend's English on hover.
    const result = await screen.findByTestId('test-result')
    expect(result.textContent).toContain('does not answer at its address')
    expect(result.querySelector('[title*="connection refused"]')).not.toBeNull()

    // Saving the key sends it once and clears the field: nothing reads it back.
    fireEvent.click(screen.getByRole('button', { name: 'Save key' }))
    await screen.findByText('Key saved.')
    expect(calls.keys).toEqual([['dashscope', 'sk-typed']])
    expect((key as HTMLInputElement).value).toBe('')

    // Settings go back as they came, with only the edited value changed and no key in them.
    fireEvent.change(screen.getByLabelText('Theme'), { target: { value: 'dark' } })
    fireEvent.change(screen.getByLabelText('Page cache for VRAG clients (MB)'), { target: { value: '512' } })
    fireEvent.change(screen.getByLabelText('Keep handed-out pages (minutes)'), { target: { value: '90' } })
    fireEvent.click(screen.getByLabelText('Page files readable by my group (for a trainer running as another user)'))
    fireEvent.click(screen.getByLabelText('Summarise new documents'))
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }))
    await waitFor(() => expect(calls.saved).toHaveLength(1))
    expect(calls.saved[0]).toEqual({
      ...settings,
      ingest: { ...settings.ingest, summarize_after: true },
      theme: 'dark',
      cache: { pages_mb: 512, pages_lease_minutes: 90, pages_group_readable: true },
    })
    expect(JSON.stringify(calls.saved[0])).not.toContain('sk-typed')
  })

  it('picks a reranker among the profiles of its kind, tests it as edited, and saves it', async () => {
    calls.saved.length = 0
    const withReranker: S = {
      ...settings,
      providers: [
        ...settings.providers!,
        { name: 'reranker', kind: 'openai', base_url: 'http://127.0.0.1:8001/v1', chat_model: '', embed_model: '', sampling: {} },
      ],
    }
    calls.settings = withReranker
    render(<Settings dataDir="/data" onSaved={() => {}} />)
    const kind = await screen.findByLabelText('Reranker', {}, { timeout: 5000 })
    expect(screen.queryByLabelText('Model', { selector: '#rerank-model' })).toBeNull()
    fireEvent.change(kind, { target: { value: 'endpoint' } })
    const profile = screen.getByLabelText('Profile') as HTMLSelectElement
    // Only OpenAI-compatible profiles serve a /rerank endpoint.
    expect(Array.from(profile.options).map((o) => o.value)).toEqual(['', 'reranker'])
    fireEvent.change(profile, { target: { value: 'reranker' } })
    fireEvent.change(screen.getByLabelText('Model', { selector: '#rerank-model' }), { target: { value: 'down' } })
    fireEvent.change(screen.getByLabelText('Pages reranked'), { target: { value: '20' } })
    fireEvent.click(screen.getByTestId('rerank-test'))
    // Generous waits: the machine running the tests may be busy.
    expect((await screen.findByTestId('rerank-result', {}, { timeout: 5000 })).textContent).toContain('connection refused')
    fireEvent.change(screen.getByLabelText('Model', { selector: '#rerank-model' }), { target: { value: 'BAAI/bge-reranker-v2-m3' } })
    fireEvent.click(screen.getByLabelText('Send page images (multimodal reranker)'))
    fireEvent.click(screen.getByTestId('rerank-test'))
    await waitFor(() => expect(screen.getByTestId('rerank-result').textContent).toBe('Works: ranked the right sample first (12 ms)'), {
      timeout: 5000,
    })
    const want = { kind: 'endpoint', provider: 'reranker', model: 'BAAI/bge-reranker-v2-m3', candidates: 20, images: true }
    expect(calls.rerank.at(-1)).toEqual(want)
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }))
    await waitFor(() => expect(calls.saved).toHaveLength(1), { timeout: 5000 })
    expect(calls.saved[0]).toEqual({ ...withReranker, rerank: want })
  }, 30000)
})
