import { fireEvent, render, screen } from '@testing-library/react'
import { i18n } from '../../i18n'
import { ViewerContext, type ViewerTarget } from '../../components/viewerContext'
import { replayRun } from '../../lib/run'
import { vragRun } from '../../test/fixtures'
import { CitationChips, StepCard } from './StepCard'

function renderRun(open: (t: ViewerTarget) => void) {
  const v = replayRun(vragRun())
  return render(
    <ViewerContext.Provider value={open}>
      {v.steps.map((s) => (
        <StepCard key={s.seq} step={s} />
      ))}
      <CitationChips citations={v.answer?.citations ?? []} />
    </ViewerContext.Provider>,
  )
}

describe('step cards', () => {
  it('shows thinking collapsed, the search with its pages, and the crop with its box', () => {
    const opened: ViewerTarget[] = []
    renderRun((t) => opened.push(t))
    const think = screen.getAllByTestId('step-think')[0] as HTMLDetailsElement
    expect(think.open).toBe(false)
    expect(think.textContent).toContain('I should search for revenue.')

    const search = screen.getByTestId('step-search')
    expect(search.textContent).toContain('revenue 2023')
    expect(screen.getAllByTestId('step-hit')).toHaveLength(2)

    const crop = screen.getByTestId('step-crop')
    expect(crop.textContent).toContain('report.pdf p. 3')
    expect(crop.textContent).toContain('true zoom')
    const box = crop.querySelector<HTMLElement>('[data-testid="region"]')!
    expect(box.style.left).toBe('10%')
    expect(box.style.width).toBe('50%')
    expect(parseFloat(box.style.top)).toBeCloseTo(14.29, 2)

    fireEvent.click(screen.getByRole('button', { name: /open page 3 at the cropped region/i }))
    expect(opened[0]).toMatchObject({ documentId: 2, unitId: 11, title: 'report.pdf' })
    expect(opened[0].regions?.[0][0]).toBeCloseTo(0.1)
  })

  it('opens the viewer at the cited region from a citation chip', () => {
    const opened: ViewerTarget[] = []
    renderRun((t) => opened.push(t))
    const chip = screen.getByTestId('citation')
    expect(chip.textContent).toContain('report.pdf · p. 3')
    fireEvent.click(chip)
    expect(opened).toEqual([{ documentId: 2, unitId: 11, title: 'report.pdf', regions: [[0.1, 0.14, 0.6, 0.36]] }])
  })

  it('shows a context problem as a warning about the window, with its fix', () => {
    const message = 'call 3: the server evaluated 2048 prompt tokens but Proofglass sent at least 3100: the prompt was cut; raise the context length'
    render(
      <StepCard step={{ type: 'error', seq: 9, step: 3, error: { code: 'context_truncated', message, recoverable: true, context: { num_ctx: 2048, estimated: 3100, server_counted: 2048 } } }} />,
    )
    const card = screen.getByTestId('step-context')
    expect(card.textContent).toContain('Context window (2048 tokens)')
    expect(card.textContent).toContain('raise the context length')
    expect(screen.queryByText('Corrected a step')).toBeNull()
  })

  it('words a context warning from its reason and numbers, in the window language, the backend text on hover', async () => {
    const message = 'call 3: the server evaluated 2048 prompt tokens of a prompt of about 3100: the prompt was cut …'
    const step = {
      type: 'error' as const,
      seq: 9,
      step: 3,
      error: { code: 'context_truncated', reason: 'truncated', message, recoverable: true, context: { num_ctx: 2048, window: 2048, estimated: 3100, server_counted: 2048 } },
    }
    const { unmount } = render(<StepCard step={step} />)
    const text = screen.getByTestId('context-reason')
    expect(text.textContent).toBe(
      'The server read 2,048 prompt tokens of about 3,100: the prompt was cut, and the model no longer sees its start (the instructions and the question). Raise the profile\'s context length above 2,048.',
    )
    expect(text.getAttribute('title')).toBe(message)
    unmount()
    await i18n.changeLanguage('zh-CN')
    try {
      render(<StepCard step={step} />)
      expect(screen.getByTestId('context-reason').textContent).toContain('服务器只读取了约 3,100 个提示 token 中的 2,048 个')
      expect(screen.getByTestId('step-context').textContent).toContain('上下文窗口（2048 个 token）')
    } finally {
      await i18n.changeLanguage('en')
    }
  })

  it('shows a recoverable error as a correction, not a failure', () => {
    render(<StepCard step={{ type: 'error', seq: 1, step: 1, error: { code: 'invalid_action', message: 'no tag', recoverable: true } }} />)
    expect(screen.getByTestId('step-error').textContent).toContain('Corrected a step')
  })

  it('says why a model call failed in the window language, the server words on hover', async () => {
    const message = 'model call 1: HTTP 401 invalid_request_error: Incorrect API key provided'
    const step = { type: 'error' as const, seq: 4, step: 1, error: { code: 'model', reason: 'unauthorized', message, recoverable: false } }
    const { unmount } = render(<StepCard step={step} />)
    const reason = screen.getByTestId('error-reason')
    expect(reason.textContent).toContain('refused the API key')
    expect(reason.getAttribute('title')).toBe(message)
    unmount()
    await i18n.changeLanguage('zh-CN')
    try {
      render(<StepCard step={step} />)
      expect(screen.getByTestId('error-reason').textContent).toContain('拒绝了 API 密钥')
    } finally {
      await i18n.changeLanguage('en')
    }
  })

  it('shows the message itself for a reason the window does not know', () => {
    const message = 'model call 2: something new'
    render(<StepCard step={{ type: 'error', seq: 5, step: 2, error: { code: 'model', reason: 'from_the_future', message, recoverable: true } }} />)
    expect(screen.queryByTestId('error-reason')).toBeNull()
    expect(screen.getByTestId('step-error').textContent).toContain(message)
  })
})
