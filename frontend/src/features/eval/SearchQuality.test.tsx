import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import type { Report } from '../../lib/types'
import { SearchQuality, type SearchApi } from './SearchQuality'

const m = (hit1: number, hit5: number) => ({ questions: 40, hit1, hit5, hit10: 0.9, mrr: 0.7 })

const choice = (boosted: boolean) => ({ l2: 1, boosted, cross_mrr_linear: 0.67, cross_mrr_boosted: 0.66 })

function report(trained: boolean, kept = '', keptDocument = ''): Report {
  return {
    choice: choice(false),
    choice_document: choice(true),
    asked: { questions: 600, held: 0.3, seed: 1 },
    library: { hand_set: m(0.5, 0.8), learned: trained ? m(0.55, 0.875) : undefined },
    within_document: { hand_set: m(0.6, 0.9), learned: trained ? m(0.6, 0.9) : undefined },
    by_document: {},
    by_question_kind: {},
    by_document_kind: {},
    documents: 12,
    pages: 900,
    train_questions: 120,
    held_questions: 40,
    train_documents: 8,
    held_documents: 4,
    train_seconds: 0.02,
    question_seconds: 4,
    model_bytes: trained ? 900 : 0,
    trained,
    kept,
    kept_document: keptDocument,
    saved: trained && !(kept && keptDocument) ? '2026-12-07T13:00:00Z' : '0001-01-01T00:00:00Z',
  } as Report
}

function fakeApi(stored: Report | null, trainResult: Report) {
  const calls: string[] = []
  const api: SearchApi = {
    searchReport: () => Promise.resolve(stored),
    measureSearch: (train: boolean) => {
      calls.push(train ? 'train' : 'measure')
      return Promise.resolve(train ? trainResult : report(false))
    },
    forgetRanker: () => {
      calls.push('forget')
      return Promise.resolve()
    },
  }
  return { api, calls }
}

describe('SearchQuality', () => {
  it('says when the library has no learned ranker, trains one and shows both rankers on the held-out questions', async () => {
    const f = fakeApi(null, report(true))
    render(<SearchQuality api={f.api} />)
    expect(await screen.findByText(/no learned ranker/)).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Use the hand-set weights' })).toHaveProperty('disabled', true)
    fireEvent.click(screen.getByRole('button', { name: 'Train a ranker' }))
    await waitFor(() => expect(f.calls).toEqual(['train']))
    expect(await screen.findByText(/Learned ranker saved/)).toBeTruthy()
    expect(screen.getByText('40 held-out questions from 4 documents (120 others to train on), 900 pages.')).toBeTruthy()
    expect(screen.getAllByText('learned')).toHaveLength(2)
    expect(screen.getByText('0.875')).toBeTruthy()
    expect(screen.getByTestId('ranker-form').textContent).toBe(
      'Form chosen on the training documents: linear for the whole library, linear with boosted trees within chosen documents.',
    )
    expect(screen.queryByTestId('ranker-vision')).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Use the hand-set weights' }))
    await waitFor(() => expect(f.calls).toEqual(['train', 'forget']))
    await waitFor(() => expect(screen.getByRole('button', { name: 'Use the hand-set weights' })).toHaveProperty('disabled', true))
  })

  it('says what the vision model wrote when one was asked', async () => {
    const withVision = {
      ...report(true),
      visual: { pages: 12, written: 30, rejected: { 'not a question': 4 }, kept: 9, easy: 11, unfound: 2, held: 8, seconds: 40 },
    }
    const f = fakeApi(withVision, withVision)
    render(<SearchQuality api={f.api} />)
    expect((await screen.findByTestId('ranker-vision')).textContent).toBe(
      'Vision model: 12 pages shown, 30 questions about what they say; 9 kept to train on (the ranking missed them), 8 held out.',
    )
  })

  it('says so when a trained ranker did worse and was not saved', async () => {
    const f = fakeApi(null, report(true, 'hand-set weights: …', 'hand-set weights: …'))
    render(<SearchQuality api={f.api} />)
    fireEvent.click(await screen.findByRole('button', { name: 'Train a ranker' }))
    expect(await screen.findByText(/Whole library: trained, but not saved/)).toBeTruthy()
    expect(screen.getByText(/Within chosen documents: trained, but not saved/)).toBeTruthy()
    expect(screen.queryByText(/Learned ranker saved/)).toBeNull()
  })
})
