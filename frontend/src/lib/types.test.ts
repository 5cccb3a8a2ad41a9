import { foldProgress, progressState, type IngestProgress } from './types'

const ev = (seq: number, stage: string, extra: Partial<IngestProgress> = {}): IngestProgress => ({
  seq,
  document_id: 7,
  name: 'a.pdf',
  stage,
  done: 0,
  total: 1,
  ...extra,
})

describe('foldProgress', () => {
  it('keeps the latest event per document whatever order they arrive in', () => {
    const m: Record<string, IngestProgress> = {}
    // "done" arrives before the page event emitted just ahead of it (the dev websocket reorders messages).
    for (const p of [ev(1, 'start'), ev(4, 'done', { done: 1 }), ev(3, 'embed'), ev(2, 'extract')]) foldProgress(m, p)
    expect(m['7'].stage).toBe('done')
    expect(progressState(m['7'])).toBe('done')
  })

  it('keys a file without a document by its path, and a retry (higher seq) replaces a failure', () => {
    const m: Record<string, IngestProgress> = {}
    foldProgress(m, { seq: 1, name: 'x.pdf', path: '/d/x.pdf', stage: 'failed', done: 0, total: 0 })
    expect(Object.keys(m)).toEqual(['/d/x.pdf'])
    foldProgress(m, ev(5, 'failed'))
    foldProgress(m, ev(9, 'start'))
    expect(progressState(m['7'])).toBe('running')
  })
})
