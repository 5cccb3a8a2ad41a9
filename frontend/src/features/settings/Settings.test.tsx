import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { vi } from 'vitest'
import type { Provider, ProviderResult, Settings as S } from '../../lib/types'

const settings: S = {
  version: 1,
  providers: [
    { name: 'ollama', kind: 'ollama', base_url: 'http://127.0.0.1:11434', chat_model: 'qwen2.5vl', embed_model: '', sampling: {} },
    { name: 'dashscope', kind: 'dashscope', base_url: 'https://dashscope.aliyuncs.com/compatible-mode/v1', chat_model: 'qwen-vl-max', embed_model: '', sampling: {} },
  ],
  agent: { provider: 'ollama', mode: 'vrag', think: false, top_k: 5 },
  ingest: { ocr_languages: ['eng'], clip_seconds: 60, workers: 0, transcription: { provider: '', model: '' } },
  theme: 'system',
  cache: { pages_mb: 0 },
}

const calls = vi.hoisted(() => ({ test: [] as [unknown, string][], saved: [] as unknown[], keys: [] as [string, string][] }))

vi.mock('../../lib/backend', () => ({
  backend: {
    settings: () => Promise.resolve(structuredClone(settings)),
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
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }))
    await waitFor(() => expect(calls.saved).toHaveLength(1))
    expect(calls.saved[0]).toEqual({ ...settings, theme: 'dark', cache: { pages_mb: 512 } })
    expect(JSON.stringify(calls.saved[0])).not.toContain('sk-typed')
  })
})
