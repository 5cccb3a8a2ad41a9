import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { ViewerContext, type ViewerTarget } from '../../components/viewerContext'
import { i18n } from '../../i18n'
import type { CompareCell, CompareRequest, CompareState } from '../../lib/types'
import type { CompareApi, CompareFormat } from './api'
import { Compare, lines } from './Compare'

const cols = [
  { label: 'report-2022.pdf', doc: '1', documents: [1] },
  { label: 'report-2023.pdf', doc: '2', documents: [2] },
]

const cell = (item: number, column: number, over: Partial<CompareCell> = {}): CompareCell => ({
  item,
  column,
  state: 'pending',
  citations: [],
  mark: 'unchecked',
  turns: 0,
  elapsed_ms: 0,
  ...over,
})

function pending(items: string[]): CompareState {
  return { seq: 1, running: true, table: { items, columns: cols, cells: items.map((_, i) => cols.map((_, j) => cell(i, j))), wall_ms: 0 } }
}

function fakeApi() {
  const started: CompareRequest[] = []
  const saved: CompareFormat[] = []
  let stopped = 0
  let listener: ((s: CompareState) => void) | null = null
  const api: CompareApi = {
    documents: () =>
      Promise.resolve([
        { id: 1, name: 'report-2022.pdf' },
        { id: 2, name: 'report-2023.pdf' },
        { id: 3, name: 'notes.pdf' },
      ]),
    start: (r) => {
      started.push(r)
      return Promise.resolve(pending(r.items ?? []))
    },
    stop: () => {
      stopped++
      return Promise.resolve()
    },
    state: () => Promise.resolve({ seq: 0, running: false, table: { items: [], columns: [], cells: [], wall_ms: 0 } }),
    save: (f) => {
      saved.push(f)
      return Promise.resolve('/home/me/comparison.' + f)
    },
    onProgress: (cb) => {
      listener = cb
      return () => {
        listener = null
      }
    },
  }
  return { api, started, saved, stopped: () => stopped, emit: (s: CompareState) => listener?.(s) }
}

function finished(): CompareState {
  const s = pending(['Revenue?', 'Employees?'])
  s.seq = 9
  s.running = false
  s.table.cells = [
    [
      cell(0, 0, {
        state: 'done',
        answer: 'Revenue was $4.2 million.',
        citations: [{ unit_id: '11', document_id: '1', document_name: 'report-2022.pdf', page: 3, region: [0.1, 0.2, 0.5, 0.6] }],
        mark: 'grounded',
        grounding: '1 of 1 figures found in the cited evidence',
      }),
      cell(0, 1, {
        state: 'done',
        answer: 'Revenue was $5.0 million.',
        citations: [{ unit_id: '21', document_id: '2', document_name: 'report-2023.pdf', page: 4 }],
        mark: 'mismatch',
      }),
    ],
    [cell(1, 0, { state: 'failed', error: 'model call 1: connection refused' }), cell(1, 1, { state: 'cancelled' })],
  ]
  return s
}

describe('Compare', () => {
  it('asks the chosen documents, fills the table as cells end, opens a cited page and saves the table', async () => {
    const f = fakeApi()
    const opened: ViewerTarget[] = []
    render(
      <ViewerContext.Provider value={(v) => opened.push(v)}>
        <Compare collectionId={1} collection="reports" api={f.api} />
      </ViewerContext.Provider>,
    )
    const run = screen.getByRole('button', { name: 'Compare' })
    fireEvent.change(screen.getByLabelText('Items to ask (one per line)'), { target: { value: 'Revenue?\n\n Employees? \n' } })
    fireEvent.click(await screen.findByLabelText('report-2022.pdf'))
    expect(run).toHaveProperty('disabled', true) // one target is not a comparison
    fireEvent.click(screen.getByLabelText('report-2023.pdf'))
    expect(run).toHaveProperty('disabled', false)
    fireEvent.click(run)
    await waitFor(() => expect(f.started).toHaveLength(1))
    expect(f.started[0]).toMatchObject({ items: ['Revenue?', 'Employees?'], documents: [1, 2], where: [], collection: 'reports', parallel: 3 })

    const table = await screen.findByTestId('compare-table')
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Item', 'report-2022.pdf', 'report-2023.pdf'])
    expect(within(table).getAllByText('Waiting…')).toHaveLength(4)
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }))
    expect(f.stopped()).toBe(1)

    act(() => f.emit(finished()))
    act(() => f.emit({ ...pending(['Revenue?', 'Employees?']), seq: 5 })) // an older state, arriving late
    expect(screen.getByRole('status').textContent).toContain('4/4 cells ended')
    expect(screen.getByText('Revenue was $4.2 million.')).toBeTruthy()
    expect(screen.getByText('Failed: model call 1: connection refused')).toBeTruthy()
    expect(screen.getByText('Cancelled')).toBeTruthy()
    const marks = screen.getAllByTestId('mark').map((m) => m.getAttribute('data-mark'))
    expect(marks).toEqual(['grounded', 'mismatch'])
    expect(screen.getAllByTestId('mark')[0].getAttribute('title')).toBe('1 of 1 figures found in the cited evidence')

    fireEvent.click(screen.getByRole('button', { name: 'report-2022.pdf p. 3' }))
    expect(opened).toEqual([{ documentId: 1, unitId: 11, title: 'report-2022.pdf', regions: [[0.1, 0.2, 0.5, 0.6]] }])

    fireEvent.click(screen.getByRole('button', { name: 'Save as XLSX' }))
    await waitFor(() => expect(f.saved).toEqual(['xlsx']))
    expect(await screen.findByText('Saved to /home/me/comparison.xlsx')).toBeTruthy()
  })

  it('compares facet filters and shows a refusal', async () => {
    const f = fakeApi()
    f.api.start = (r) => {
      f.started.push(r)
      return Promise.reject(new Error('compare: target 2 (year=soon): want a year'))
    }
    render(<Compare collectionId={1} collection="reports" api={f.api} />)
    fireEvent.change(screen.getByLabelText('Items to ask (one per line)'), { target: { value: 'Revenue?' } })
    fireEvent.change(screen.getByLabelText('Or facet filters, one column each (one per line)'), { target: { value: 'year=2022\nyear=soon' } })
    fireEvent.click(screen.getByRole('button', { name: 'Compare' }))
    expect((await screen.findByRole('alert')).textContent).toContain('want a year')
    expect(f.started[0]).toMatchObject({ items: ['Revenue?'], documents: [], where: ['year=2022', 'year=soon'] })
  })

  it('speaks Chinese', async () => {
    await i18n.changeLanguage('zh-CN')
    try {
      const f = fakeApi()
      render(<Compare collectionId={1} collection="reports" api={f.api} />)
      act(() => f.emit(finished()))
      expect(screen.getByRole('button', { name: '开始对比' })).toBeTruthy()
      expect(screen.getByRole('button', { name: 'report-2022.pdf 第 3 页' })).toBeTruthy()
      expect(screen.getByText('有据可查')).toBeTruthy()
      expect(screen.getByRole('button', { name: '保存为 CSV' })).toBeTruthy()
    } finally {
      await i18n.changeLanguage('en')
    }
  })

  it('reads one item per line', () => {
    expect(lines(' a \n\nb\n ')).toEqual(['a', 'b'])
  })
})
