import { render, screen } from '@testing-library/react'
import { SearchResults } from './Library'
import type { SearchHit } from '../../lib/types'

describe('search results', () => {
  it('says in the library’s search results whether they were reranked, and by what', () => {
    const sh = (unit: number, rerank?: number, first_rank?: number): SearchHit =>
      ({ unit_id: unit, document_id: 2, doc: 'report.pdf', doc_kind: 'pdf', collection_id: 1, page: unit, unit_kind: 'page',
        width: 600, height: 800, score: 0.0312, scores: { bm25: 1, text: null, visual: null }, ranks: [1, 0, 0], boxes: [], rerank, first_rank }) as SearchHit
    const { rerender } = render(
      <SearchResults hits={[sh(7, 0.93, 8), sh(3, 0.1, 1)]} notes={[]} rerank={{ reranker: 'rerank endpoint bge', candidates: 30, reranked: true, ms: 41 }} onOpen={() => {}} />,
    )
    expect(screen.getByTestId('rerank-note').textContent).toContain('reranked the first 30 pages (41 ms)')
    expect(screen.getByTestId('rerank-note').getAttribute('title')).toBe('rerank endpoint bge')
    expect(screen.getAllByTestId('hit')[0].textContent).toContain('rerank 0.930 · was #8')
    expect(screen.queryByTestId('rerank-failed')).toBeNull()

    rerender(
      <SearchResults
        hits={[sh(3), sh(7)]}
        notes={[]}
        rerank={{ reranker: 'rerank endpoint bge', candidates: 30, reranked: false, error: 'HTTP 503: overloaded', ms: 5 }}
        onOpen={() => {}}
      />,
    )
    const failed = screen.getByTestId('rerank-failed')
    expect(failed.textContent).toBe('rerank endpoint bge failed, so these results are in first-stage order (hover for the reason).')
    expect(failed.getAttribute('title')).toBe('HTTP 503: overloaded')
    expect(screen.getAllByTestId('hit')[0].textContent).toContain('score 0.0312')
    expect(screen.queryByTestId('rerank-note')).toBeNull()
  })
})
