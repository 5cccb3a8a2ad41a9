import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import type { EvalApi, EvalRequest, EvalState } from './api'
import { Evaluation, eta } from './Evaluation'

function fakeApi() {
  const started: EvalRequest[] = []
  const opened: number[] = []
  let listener: ((s: EvalState) => void) | null = null
  const api: EvalApi = {
    pickDataset: () => Promise.resolve('/data/dev/questions.jsonl'),
    start: (r) => {
      started.push(r)
      return Promise.resolve()
    },
    stop: () => Promise.resolve(),
    state: () => Promise.resolve({ running: false, evaluation: 0, done: 0, total: 0, resumed: 0 }),
    evaluations: () => Promise.resolve([{ id: 7, dataset: '/data/dev/questions.jsonl', collection: 'dev', status: 'done', items: 66 }]),
    openReport: (id) => {
      opened.push(id)
      return Promise.resolve(`/home/u/.local/share/proofglass/reports/evaluation-${id}.html`)
    },
    onProgress: (cb) => {
      listener = cb
      return () => {
        listener = null
      }
    },
    searchReport: () => Promise.resolve(null),
    measureSearch: () => Promise.resolve(null),
    forgetRanker: () => Promise.resolve(),
  }
  return { api, started, opened, emit: (s: EvalState) => listener?.(s) }
}

describe('Evaluation', () => {
  it('starts an evaluation with the chosen file, mode and model, shows progress and opens a report', async () => {
    const f = fakeApi()
    render(<Evaluation collections={['dev', 'papers']} api={f.api} />)
    const evaluate = screen.getByRole('button', { name: 'Evaluate' })
    expect(evaluate).toHaveProperty('disabled', true)
    fireEvent.click(screen.getByRole('button', { name: 'Choose…' }))
    await waitFor(() => expect(evaluate).toHaveProperty('disabled', false))
    fireEvent.change(screen.getByLabelText('Mode'), { target: { value: 'vimrag' } })
    fireEvent.change(screen.getByLabelText('Model'), { target: { value: 'qwen2.5vl:7b' } })
    fireEvent.click(evaluate)
    await waitFor(() => expect(f.started).toHaveLength(1))
    expect(f.started[0]).toMatchObject({ dataset: '/data/dev/questions.jsonl', collection: 'dev', mode: 'vimrag', model: 'qwen2.5vl:7b', samples: 1, judge_model: '' })
    act(() => f.emit({ running: true, evaluation: 3, done: 12, total: 66, resumed: 10 }))
    expect(screen.getByRole('status').textContent).toContain('12/66 answers scored (10 resumed)')
    expect(screen.getByLabelText('Evaluation progress')).toHaveProperty('value', 18)
    act(() => f.emit({ running: false, evaluation: 3, done: 66, total: 66, resumed: 10, error: '' }))
    fireEvent.click(await screen.findByRole('button', { name: 'Open report' }))
    await waitFor(() => expect(f.opened).toEqual([7]))
    expect(await screen.findByText(/evaluation-7\.html/)).toBeTruthy()
  })

  it('shows why an evaluation stopped', async () => {
    const f = fakeApi()
    render(<Evaluation collections={['dev']} api={f.api} />)
    act(() => f.emit({ running: false, evaluation: 2, done: 3, total: 66, resumed: 0, error: 'model call 1: connection refused' }))
    expect((await screen.findByRole('alert')).textContent).toContain('connection refused')
  })
})

describe('eta', () => {
  it('extrapolates the pace of the items run in this session', () => {
    const s: EvalState = { running: true, evaluation: 1, done: 30, total: 66, resumed: 20 }
    // 10 items in 20 s since start → 2 s each → 36 left → 72 s.
    expect(eta(s, 0, 20_000, 20)).toBe('1 min 12 s left')
    expect(eta({ ...s, running: false }, 0, 20_000, 20)).toBe('')
    expect(eta(s, 0, 20_000, 30)).toBe('')
  })

  it('says there are no evaluations yet instead of an empty table', async () => {
    const f = fakeApi()
    f.api.evaluations = () => Promise.resolve([])
    render(<Evaluation collections={['dev']} api={f.api} />)
    expect(await screen.findByText(/No evaluations yet/)).toBeTruthy()
    expect(screen.queryByRole('table')).toBeNull()
  })
})
