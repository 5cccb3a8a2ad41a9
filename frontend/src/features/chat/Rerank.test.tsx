import { render, screen } from '@testing-library/react'
import { StepCard } from './StepCard'
import type { Hit } from '../../lib/types'

const hit = (unit: number, page: number, rerank?: number, first_rank?: number): Hit => ({
  unit_id: String(unit),
  document_id: '2',
  document_name: 'report.pdf',
  kind: 'pdf',
  page,
  score: 0.03,
  shown: unit === 18,
  rerank,
  first_rank,
})

describe('reranked results', () => {
  it('shows the rerank score and the first-stage rank on the agent’s retrieved pages', () => {
    render(
      <StepCard
        step={{ type: 'search', seq: 3, step: 1, query: 'revenue 2023', results: { query: 'revenue 2023', hits: [hit(18, 7, 0.91, 8), hit(11, 3, 0.12, 1)] } }}
      />,
    )
    const badges = screen.getAllByTestId('step-hit-rerank')
    expect(badges.map((b) => b.textContent)).toEqual(['↑ 0.91', '↑ 0.12'])
    expect(screen.getAllByTestId('step-hit')[0].getAttribute('title')).toBe('report.pdf, page 7 (shown to the model) · rerank 0.910, was #8')
  })

  it('names a failed reranker in the run, not as a corrected step', () => {
    const message = 'rerank endpoint bge at http://127.0.0.1:8001/v1/rerank failed, so these results are in first-stage order: HTTP 503'
    render(<StepCard step={{ type: 'error', seq: 4, step: 1, error: { code: 'rerank', message, recoverable: true } }} />)
    const card = screen.getByTestId('step-error')
    expect(card.textContent).toContain('Reranker unavailable: first-stage order')
    expect(card.textContent).toContain('HTTP 503')
  })
})
