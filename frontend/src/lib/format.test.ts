import { formatBytes, formatDuration, formatRate, ingestNotice, percent, progressLine, promptsCut } from './format'

describe('progress formatting', () => {
  const durations: Record<string, [number, string]> = {
    seconds: [42.4, '42 s'],
    minutes: [125, '2 min 05 s'],
    hours: [3 * 3600 + 7 * 60, '3 h 07 min'],
    negative: [-1, '—'],
    infinite: [Infinity, '—'],
  }
  for (const [name, [s, want]] of Object.entries(durations)) it(`duration: ${name}`, () => expect(formatDuration(s)).toBe(want))

  it('formats rates with one decimal below 10', () => {
    expect(formatRate(3.25)).toBe('3.3 pages/s')
    expect(formatRate(41.6)).toBe('42 pages/s')
    expect(formatRate(0)).toBe('')
    expect(formatRate(NaN)).toBe('')
  })

  it('formats sizes', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(1536)).toBe('1.5 KB')
    expect(formatBytes(25 * 1024 * 1024)).toBe('25 MB')
  })

  it('clamps percentages', () => {
    expect(percent(5, 0)).toBe(0)
    expect(percent(7, 3)).toBe(100)
    expect(percent(1, 3)).toBe(33)
  })

  it('writes the line under a progress bar', () => {
    expect(progressLine({ stage: 'ocr', done: 12, total: 40, pages_per_s: 3.2, eta_s: 9 })).toBe(
      'OCR · 12/40 pages · 3.2 pages/s · ETA 9 s',
    )
    expect(progressLine({ stage: 'embed', done: 40, total: 40, pages_per_s: 50, eta_s: 0 })).toBe('Embedding · 40/40 pages · 50 pages/s')
    expect(progressLine({ stage: 'queued', done: 0, total: 0 })).toBe('Queued')
  })
})

describe('ingest notice', () => {
  const cases: Record<string, [Parameters<typeof ingestNotice>[0], string]> = {
    none: [[], ''],
    'pages left': [[{ name: 'R-refman.pdf', done: 812, total: 2415 }], 'Still ingesting — R-refman.pdf: pages 813–2415 of 2415 not searchable yet.'],
    'last page': [[{ name: 'a.pdf', done: 9, total: 10 }], 'Still ingesting — a.pdf: page 10 of 10 not searchable yet.'],
    'count unknown': [[{ name: 'b.pdf', done: 0, total: 0 }], 'Still ingesting — b.pdf: not searchable yet.'],
    'video and pdf': [
      [
        { name: 'film.ogv', kind: 'video', done: 1, total: 4 },
        { name: 'c.pdf', done: 0, total: 3 },
      ],
      'Still ingesting — film.ogv: clips 2–4 of 4 not searchable yet; c.pdf: pages 1–3 of 3 not searchable yet.',
    ],
  }
  for (const [name, [pending, want]] of Object.entries(cases)) it(name, () => expect(ingestNotice(pending)).toBe(want))
})

describe('promptsCut', () => {
  const u = { prompt_tokens: 900, completion_tokens: 10, images: 1, visual_tokens: 300, steps: 2, tool_steps: 1, wall_ms: 5 }
  it('is true only when the server counted fewer prompt tokens than were sent', () => {
    expect(promptsCut(u)).toBe(false)
    expect(promptsCut({ ...u, prompt_tokens_sent: 800 })).toBe(false)
    expect(promptsCut({ ...u, prompt_tokens_sent: 4000 })).toBe(true)
  })
})
