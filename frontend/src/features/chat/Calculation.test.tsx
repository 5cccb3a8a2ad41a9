import { fireEvent, render, screen } from '@testing-library/react'
import { createRef } from 'react'
import { vi } from 'vitest'
import { ViewerContext, type ViewerTarget } from '../../components/viewerContext'
import { i18n } from '../../i18n'
import type { AgentEvent, GroundingInfo } from '../../lib/events'
import { buildGraph } from '../../lib/graph'
import { claimStatus, groundingSummary } from '../../lib/grounding'
import { replayRun } from '../../lib/run'
import { Chat } from './Chat'
import { GroundedAnswer } from './Grounding'
import { StepCard } from './StepCard'
import type { ChatState } from './useChat'

// Table 1 of blood_loss_report.pdf (page 2): measured blood loss 350.0 ml (vaginal) and 500.0 ml (planned cesarean).
const ev = (seq: number, e: Partial<AgentEvent> & Pick<AgentEvent, 'kind'>): AgentEvent => ({
  seq,
  time: '2025-01-01T00:00:00Z',
  elapsed_ms: seq,
  run_id: 'r9',
  step: 2,
  ...e,
})

const events: AgentEvent[] = [
  ev(1, { kind: 'run_started', step: 0, run: { mode: 'vimrag', question: 'How much higher?', think: false, max_steps: 20, top_k: 3, calculator: true } }),
  ev(2, {
    kind: 'calculation',
    calculation: {
      id: 'calc-1',
      node_id: 'calculation 1',
      expression: 'growth(vaginal, planned)',
      text: '42.86%',
      value: 42.8571428571,
      unit: '%',
      operands: [
        { name: 'vaginal', value: '350.0', number: 350, source: { unit_id: '12', document_id: '3', document_name: 'blood_loss_report.pdf', page: 2, cell: 'measured blood loss' } },
        { name: 'planned', value: '500.0', number: 500, source: { page: 2 } },
      ],
    },
  }),
  ev(3, {
    kind: 'calculation',
    step: 3,
    calculation: { id: 'calc-2', expression: 'a / b', error_kind: 'division_by_zero', error: 'division by zero: the divisor in 1 / 0 is zero', operands: [{ name: 'a', value: '1' }, { name: 'b', value: '0' }] },
  }),
  ev(4, {
    kind: 'graph',
    graph: {
      nodes: [
        { id: 'root', type: 'root' },
        { id: 'Table 1', type: 'search', parents: ['root'], query: 'blood loss table', summary: 'Table 1 gives medians.' },
        { id: 'calculation 1', type: 'calculation', parents: ['Table 1'], expression: 'growth(vaginal, planned)', result: '42.86%' },
      ],
      edges: [
        { from: 'root', to: 'Table 1' },
        { from: 'Table 1', to: 'calculation 1' },
      ],
      total_pixels: 2007040,
    },
  }),
]

function renderSteps(open: (t: ViewerTarget) => void) {
  const v = replayRun(events)
  return render(
    <ViewerContext.Provider value={open}>
      {v.steps.map((s) => (
        <StepCard key={s.seq} step={s} />
      ))}
    </ViewerContext.Provider>,
  )
}

describe('calculations', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en')
  })

  it('shows a card with the expression, the result and each operand with its page', () => {
    const opened: ViewerTarget[] = []
    renderSteps((t) => opened.push(t))
    const [ok, failed] = screen.getAllByTestId('step-calculation')
    expect(ok.textContent).toContain('Calculated')
    expect(ok.textContent).toContain('growth(vaginal, planned) = 42.86%')
    expect(ok.textContent).toContain('calculation 1')
    const ops = screen.getAllByTestId('calc-operand')
    expect(ops[0].textContent).toContain('vaginal = 350.0 · measured blood loss · blood_loss_report.pdf p. 2')
    expect(ops[1].textContent).toContain('planned = 500.0 · page p. 2')
    fireEvent.click(screen.getByRole('button', { name: 'blood_loss_report.pdf p. 2' }))
    expect(opened[0]).toMatchObject({ documentId: 3, unitId: 12, title: 'blood_loss_report.pdf' })
    expect(failed.className).toContain('failed')
    expect(screen.getByTestId('calc-error').textContent).toBe(
      'division by zero: the divisor in 1 / 0 is zero (division_by_zero) — the model was told and may try again',
    )
    expect(failed.querySelector('[data-testid="calc-result"]')).toBeNull()
  })

  it('speaks Chinese', async () => {
    await i18n.changeLanguage('zh-CN')
    renderSteps(() => {})
    const [ok, failed] = screen.getAllByTestId('step-calculation')
    expect(ok.textContent).toContain('已计算')
    expect(screen.getAllByTestId('calc-operand')[0].textContent).toContain('blood_loss_report.pdf 第 2 页')
    expect(failed.textContent).toContain('计算器错误')
    expect(screen.getByTestId('calc-error').textContent).toContain('已告知模型')
  })

  it('draws the calculation node in the memory graph', () => {
    const v = replayRun(events)
    const { nodes, edges } = buildGraph(v.graph, v.memories)
    const calc = nodes.find((n) => n.id === 'calculation 1')
    expect(calc?.data).toMatchObject({ type: 'calculation', expression: 'growth(vaginal, planned)', result: '42.86%' })
    expect(edges.map((e) => e.id)).toContain('Table 1->calculation 1')
    const search = nodes.find((n) => n.id === 'Table 1')!
    expect(calc!.position.y).toBeGreaterThan(search.position.y)
  })

  it('marks a computed figure as grounded and names its calculation', async () => {
    const text = 'It is 42.86% higher, not 45.2%.'
    const g: GroundingInfo = {
      summary: '1 of 2 figures found in the cited evidence; 1 computed from cited figures, 1 mismatch',
      figures: 2,
      figures_grounded: 1,
      names: 0,
      names_grounded: 0,
      elapsed_ms: 1,
      claims: [
        { text: '42.86%', kind: 'percent', start: 6, end: 12, status: 'computed', calculation: 'calc-1', note: 'computed by calc-1: …' },
        { text: '45.2%', kind: 'percent', start: 25, end: 30, status: 'mismatch', calculation: 'calc-1', note: '45.2% — calculation calc-1 … gives 42.86%' },
      ],
    }
    expect(groundingSummary(g)).toBe('1 of 2 figures found in the cited evidence; 1 computed from cited figures, 1 mismatch')
    expect(claimStatus(g.claims![0])).toBe('computed by calculation calc-1 from figures on the cited pages')
    expect(claimStatus(g.claims![1])).toBe('differs from the result of calculation calc-1')
    render(<GroundedAnswer text={text} grounding={g} />)
    const marks = screen.getAllByTestId('claim')
    expect(marks.map((m) => m.dataset.status)).toEqual(['computed', 'mismatch'])
    expect(marks[0].className).toContain('claim-computed')
    await i18n.changeLanguage('zh-CN')
    expect(claimStatus(g.claims![0])).toBe('由计算 calc-1 根据引用页上的数字得出')
    expect(groundingSummary(g)).toContain('1 个由引用数字计算得出')
  })

  it('sends calculator only when the toggle is on, and never for vanilla', () => {
    const ask = vi.fn()
    const state: ChatState = {
      conversations: [],
      current: 0,
      turns: [],
      runs: {},
      activeRun: '',
      running: false,
      open: async () => {},
      ask,
      stop: () => {},
      newChat: () => {},
      reload: () => {},
      setActiveRun: () => {},
    }
    render(
      <Chat
        chat={state}
        collection="papers"
        scope={[]}
        onScope={() => {}}
        ingesting={[]}
        defaults={{ mode: 'vrag', think: false }}
        inputRef={createRef<HTMLTextAreaElement>()}
        onShowGraph={() => {}}
      />,
    )
    const askOnce = () => {
      fireEvent.change(screen.getByLabelText('Question'), { target: { value: 'How much higher?' } })
      fireEvent.click(screen.getByRole('button', { name: 'Ask' }))
    }
    askOnce()
    expect(ask.mock.calls[0][1]).toEqual({ mode: 'vrag', think: false, collection: 'papers' })
    fireEvent.click(screen.getByRole('checkbox', { name: 'Calculator' }))
    askOnce()
    expect(ask.mock.calls[1][1]).toEqual({ mode: 'vrag', think: false, collection: 'papers', calculator: true })
    fireEvent.change(screen.getByLabelText('Mode'), { target: { value: 'vanilla' } })
    expect(screen.queryByRole('checkbox', { name: 'Calculator' })).toBeNull()
    askOnce()
    expect(ask.mock.calls[2][1]).toEqual({ mode: 'vanilla', think: false, collection: 'papers' })
  })
})

describe('calculations in exports', () => {
  it('lists each calculation with its operands and pages in the Markdown export', async () => {
    const { exportMarkdown } = await import('../../lib/export')
    const md = exportMarkdown('t', [{ question: 'How much higher?', run: replayRun(events) }])
    expect(md).toContain('- Calculated calc-1: growth(vaginal, planned) = 42.86% (vaginal = 350.0, p. 2, planned = 500.0, p. 2)')
    expect(md).toContain('- Calculator error calc-2: a / b: division by zero: the divisor in 1 / 0 is zero')
  })
})
