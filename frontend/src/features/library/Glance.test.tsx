import { act, fireEvent, render, screen } from '@testing-library/react'
import { Glance } from './Glance'
import type { Summary } from '../../lib/types'

const outlineOnly: Summary = {
  document_id: 3,
  name: 'blood_loss_report.pdf',
  model: '',
  sentences: [],
  key_figures: [],
  figures: 0,
  grounded: 0,
  mismatched: 0,
  pages_read: [],
  created: '0001-01-01T00:00:00Z',
  elapsed_ms: 0,
  cached: false,
  outline: {
    document_id: 3,
    name: 'blood_loss_report.pdf',
    pages: 19,
    title: 'Statistical Supplementary Material',
    sections: [
      { title: 'Statistical Analysis', number: '2', level: 1, page: 1, region: [0.1, 0.7, 0.5, 0.72] },
      { title: 'Methods', number: '2.2', level: 2, page: 3 },
    ],
    tables: [{ page: 2, index: 1, caption: 'Table 1: Distribution', rows: 52, columns: 6, region: [0.1, 0.2, 0.9, 0.7] }],
    figures: [{ label: 'Figure 4', caption: 'Figure 4: Measured blood loss', page: 12 }],
    key_figures: [{ figure: '4.9%', text: 'Supposing a PPH-rate of 4.9% in our patients.', page: 1, region: [0.1, 0.8, 0.9, 0.85] }],
    elapsed_ms: 4,
  },
}

const summarised: Summary = {
  ...outlineOnly,
  model: 'qwen2.5vl:7b',
  figures: 2,
  grounded: 1,
  mismatched: 1,
  cached: false,
  sentences: [
    {
      text: 'A PPH-rate of 4.9% was supposed.',
      pages: [1],
      claims: [
        { text: '4.9%', kind: 'percent', start: 14, end: 18, status: 'cited_page', note: 'on a cited page (page 1)', page: 1, region: [0.3, 0.8, 0.35, 0.82] },
      ],
    },
  ],
  key_figures: [
    {
      text: '4.8% — the PPH-rate',
      pages: [1],
      claims: [{ text: '4.8%', kind: 'percent', start: 0, end: 4, status: 'mismatch', note: 'the cited page says 4.9%', page: 1 }],
    },
  ],
}

describe('Glance', () => {
  it('lists the outline with page links that open the page at its region, and asks the model on request', async () => {
    const opened: [number, unknown][] = []
    const asked: boolean[] = []
    await act(async () => {
      render(
        <Glance
          documentId={3}
          load={async () => outlineOnly}
          summarize={async (_id, refresh) => {
            asked.push(refresh)
            return summarised
          }}
          onOpenPage={(page, region) => opened.push([page, region])}
        />,
      )
    })
    const box = screen.getByRole('region', { name: 'At a glance' })
    expect(screen.getAllByTestId('glance-section')).toHaveLength(2)
    expect(box.textContent).toContain('Table 1: Distribution')
    expect(box.textContent).toContain('(52 × 6)')
    expect(box.textContent).toContain('Figure 4: Measured blood loss')
    expect(box.textContent).toContain('No summary yet')
    fireEvent.click(screen.getAllByRole('button', { name: 'p. 1' })[0])
    expect(opened[0]).toEqual([1, [0.1, 0.7, 0.5, 0.72]])
    fireEvent.click(screen.getByRole('button', { name: 'p. 12' }))
    expect(opened[1]).toEqual([12, undefined])

    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Summarise with the model' }))
    })
    expect(asked).toEqual([false])
    expect(box.textContent).toContain('Summary by qwen2.5vl:7b: 1 of 2 figures found on the pages cited; 1 differs from its page')
    const marks = Array.from(box.querySelectorAll('.claim-mark'))
    expect(marks.map((m) => m.getAttribute('data-status'))).toEqual(['cited_page', 'mismatch'])
    expect(marks[0].textContent).toBe('✓ 4.9%')
    expect(marks[1].textContent).toBe('✗ 4.8%')
    expect(marks[1].getAttribute('title')).toBe('the cited evidence has another value here')
    fireEvent.click(marks[0])
    expect(opened[2]).toEqual([1, [0.3, 0.8, 0.35, 0.82]])
    expect(screen.getByRole('button', { name: 'Ask the model again' })).toBeTruthy()
  })

  it('shows a failed summary’s error and keeps the outline', async () => {
    await act(async () => {
      render(
        <Glance
          documentId={3}
          load={async () => outlineOnly}
          summarize={async () => {
            throw new Error('summarize document 3 (blood_loss_report.pdf) with m: connection refused')
          }}
          onOpenPage={() => {}}
        />,
      )
    })
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Summarise with the model' }))
    })
    expect(screen.getByRole('alert').textContent).toContain('connection refused')
    expect(screen.getAllByTestId('glance-section')).toHaveLength(2)
  })
})
