import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import type { ProbeResult, Provider } from '../../lib/types'
import { ModelCheck, ModelOptions } from './ModelTuning'

const ollama: Provider = { name: 'ollama', kind: 'ollama', base_url: 'http://127.0.0.1:11434', chat_model: 'qwen2.5vl:7b', embed_model: '', sampling: {} }

describe('ModelOptions', () => {
  it('edits the context length and sampling; an emptied field is unset', () => {
    let p: Provider = { ...ollama, sampling: { temperature: 0.2 } }
    const { rerender } = render(<ModelOptions p={p} onChange={(np) => (p = np)} />)
    expect(screen.getByText(/sized for each run/)).toBeTruthy()
    fireEvent.change(screen.getByLabelText('Context length'), { target: { value: '16384' } })
    expect(p.context_length).toBe(16384)
    rerender(<ModelOptions p={p} onChange={(np) => (p = np)} />)
    expect(screen.getByText('num_ctx 16384 on every call')).toBeTruthy()
    fireEvent.change(screen.getByLabelText('Top p'), { target: { value: '0.9' } })
    expect(p.sampling).toEqual({ temperature: 0.2, top_p: 0.9 })
    rerender(<ModelOptions p={p} onChange={(np) => (p = np)} />)
    fireEvent.change(screen.getByLabelText('Temperature'), { target: { value: '' } })
    expect(p.sampling?.temperature).toBeUndefined()
    expect(p.sampling?.top_p).toBe(0.9)
  })
})

describe('ModelCheck', () => {
  it('shows each probe with the fix of a failure', async () => {
    const results: ProbeResult[] = [
      { name: 'vision', ok: true, detail: 'one image accepted' },
      { name: 'images', ok: false, detail: '10 images in one request: At most 1 image(s)', fix: "start vLLM with --limit-mm-per-prompt '{\"image\":10}'" },
      { name: 'context', ok: true, skipped: true, detail: 'the server does not say' },
    ]
    const asked: string[] = []
    render(<ModelCheck p={{ ...ollama, kind: 'openai', name: 'vllm' }} mode="vrag" probe={async (_p, m, mode) => (asked.push(`${m}/${mode}`), results)} />)
    expect(screen.queryByRole('button', { name: 'Pull' })).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Check model for vrag' }))
    const list = await screen.findByTestId('probe-results')
    expect(asked).toEqual(['qwen2.5vl:7b/vrag'])
    expect(list.textContent).toContain('fix: start vLLM with --limit-mm-per-prompt')
    expect(list.querySelectorAll('li.error')).toHaveLength(1)
    expect(list.textContent).not.toContain('fix: undefined')
  })

  it('pulls an Ollama model and shows its progress', async () => {
    let finish: () => void = () => {}
    const pulled: string[] = []
    const pull = (_p: Provider, name: string) =>
      new Promise<void>((resolve) => {
        pulled.push(name)
        finish = resolve
      })
    const { rerender } = render(<ModelCheck p={ollama} mode="vrag" probe={async () => []} pull={pull} progress={null} />)
    fireEvent.change(screen.getByLabelText('Model to pull on ollama'), { target: { value: 'gemma3:4b' } })
    fireEvent.click(screen.getByRole('button', { name: 'Pull' }))
    expect(pulled).toEqual(['gemma3:4b'])
    expect(screen.getByRole('button', { name: 'Pulling…' })).toHaveProperty('disabled', true)
    rerender(
      <ModelCheck p={ollama} mode="vrag" probe={async () => []} pull={pull}
        progress={{ provider: 'ollama', model: 'gemma3:4b', status: 'pulling 6a07', completed: 250, total: 1000 }} />,
    )
    expect(screen.getByTestId('pull-progress').textContent).toContain('25%')
    await act(async () => finish())
    await waitFor(() => expect(screen.getByRole('button', { name: 'Pull' })).toHaveProperty('disabled', false))
  })
})
