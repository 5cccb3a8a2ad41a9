import { vragRun } from '../test/fixtures'
import { emptyRun, isRunning, liveAnswer, reduceRun, replayRun, splitContent } from './run'

describe('reduceRun', () => {
  it('folds a vrag run into thinking, search, crop cards and the answer', () => {
    const v = replayRun(vragRun())
    expect(v.info?.mode).toBe('vrag')
    expect(v.steps.map((s) => s.type)).toEqual(['think', 'search', 'think', 'crop', 'think'])
    const search = v.steps[1]
    expect(search.type === 'search' && search.results?.hits?.length).toBe(2)
    expect(v.steps[0].type === 'think' && v.steps[0].text).toBe('I should search for revenue.')
    expect(liveAnswer(v)).toBe('Revenue was $4.2M.')
    expect(v.done?.status).toBe('answered')
    expect(isRunning(v)).toBe(false)
  })

  it('streams a partial answer before the answer event', () => {
    const evs = vragRun()
    const upTo = evs.findIndex((e) => e.kind === 'answer')
    const v = evs.slice(0, upTo - 1).reduce(reduceRun, emptyRun())
    expect(liveAnswer(v)).toBe('Revenue was')
    expect(isRunning(v)).toBe(true)
  })

  it('applies events that arrive out of order in seq order', () => {
    const evs = vragRun()
    const inOrder = replayRun(evs)
    // Swap neighbours and move the last event first: every event must still be applied, in order.
    const shuffled = [evs[evs.length - 1], ...evs.slice(0, -1)]
    for (let i = 1; i + 1 < shuffled.length; i += 2) [shuffled[i], shuffled[i + 1]] = [shuffled[i + 1], shuffled[i]]
    const live = shuffled.reduce(reduceRun, emptyRun())
    expect(live.steps).toEqual(inOrder.steps)
    expect(live.answer).toEqual(inOrder.answer)
    expect(live.done).toEqual(inOrder.done)
    expect(live.pending).toEqual({})
    // Before the gap is filled the later events wait and nothing after the gap shows.
    const early = [evs[0], evs[2]].reduce(reduceRun, emptyRun())
    expect(early.lastSeq).toBe(evs[0].seq)
    expect(Object.keys(early.pending)).toEqual([String(evs[2].seq)])
  })

  it('ignores replayed events it has already applied', () => {
    const evs = vragRun()
    const once = replayRun(evs)
    const twice = evs.reduce(reduceRun, once)
    expect(twice).toBe(once)
  })

  it('keeps a results event without its search as its own card', () => {
    const [start, , , , results] = vragRun()
    const v = [start, { ...results, seq: start.seq + 1 }].reduce(reduceRun, emptyRun())
    expect(v.steps).toHaveLength(1)
    expect(v.steps[0].type === 'search' && v.steps[0].query).toBe('revenue 2023')
  })

  it('records thinking deltas per model call', () => {
    const v = [
      { seq: 1, time: '', elapsed_ms: 0, run_id: 'x', kind: 'thinking' as const, step: 1, text: 'a' },
      { seq: 2, time: '', elapsed_ms: 0, run_id: 'x', kind: 'thinking' as const, step: 1, text: 'b' },
      { seq: 3, time: '', elapsed_ms: 0, run_id: 'x', kind: 'thinking' as const, step: 2, text: 'c' },
    ].reduce(reduceRun, emptyRun())
    expect(v.steps.map((s) => (s.type === 'think' ? s.text : ''))).toEqual(['ab', 'c'])
  })
})

describe('splitContent', () => {
  const cases: Record<string, [string, { think: string; answer: string }]> = {
    'complete turn': ['<think>x</think><answer>y</answer>', { think: 'x', answer: 'y' }],
    'unfinished answer': ['<think>x</think><answer>part', { think: 'x', answer: 'part' }],
    'no tags': ['plain', { think: '', answer: '' }],
    'search turn': ['<think> t </think><search>q</search>', { think: 't', answer: '' }],
  }
  for (const [name, [input, want]] of Object.entries(cases)) {
    it(name, () => expect(splitContent(input)).toEqual(want))
  }

  it('keeps how a follow-up was understood', () => {
    const rewrite = { asked: 'And in 2020?', question: 'What was the margin in 2020?', rewritten: true, reason: 'follow_up' }
    const v = [
      { seq: 1, time: '', elapsed_ms: 0, run_id: 'r', kind: 'run_started' as const, step: 0, run: { mode: 'vrag', question: 'And in 2020?', think: false, max_steps: 10, top_k: 10 } },
      { seq: 2, time: '', elapsed_ms: 0, run_id: 'r', kind: 'rewrite' as const, step: 0, rewrite },
    ].reduce(reduceRun, emptyRun())
    expect(v.rewrite?.question).toBe('What was the margin in 2020?')
    expect(v.info?.question).toBe('And in 2020?')
  })
})
