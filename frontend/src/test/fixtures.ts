// A recorded-shape event stream of a vrag run (one search, one crop, an answer) and a vimrag graph, for unit tests.
import type { AgentEvent } from '../lib/events'

let seq = 0
const ev = (e: Partial<AgentEvent> & Pick<AgentEvent, 'kind'>): AgentEvent => ({
  seq: ++seq,
  time: '2025-01-01T00:00:00Z',
  elapsed_ms: seq * 10,
  run_id: 'r1',
  step: 0,
  ...e,
})

export function vragRun(): AgentEvent[] {
  seq = 0
  return [
    ev({ kind: 'run_started', run: { mode: 'vrag', question: 'What is the revenue?', think: false, max_steps: 10, top_k: 10 } }),
    ev({ kind: 'content', step: 1, text: '<think>I should search' }),
    ev({ kind: 'content', step: 1, text: ' for revenue.</think><search>revenue 2023</search>' }),
    ev({ kind: 'search', step: 1, search: { query: 'revenue 2023' } }),
    ev({
      kind: 'results',
      step: 1,
      results: {
        query: 'revenue 2023',
        hits: [
          { unit_id: '11', document_id: '2', document_name: 'report.pdf', kind: 'pdf', page: 3, score: 0.03, shown: true, thumbnail: 'ab'.repeat(32) },
          { unit_id: '12', document_id: '2', document_name: 'report.pdf', kind: 'pdf', page: 4, score: 0.02, shown: false, skipped: 'limit' },
        ],
      },
    }),
    ev({ kind: 'content', step: 2, text: '<think>Zoom in.</think><bbox>[10, 20, 110, 70]</bbox>' }),
    ev({
      kind: 'crop',
      step: 2,
      crop: {
        unit_id: '11',
        document_id: '2',
        document_name: 'report.pdf',
        page: 3,
        bbox_sent: [10, 20, 110, 70],
        frame_w: 200,
        frame_h: 280,
        bbox_raw: [100, 200, 600, 500],
        page_w: 1000,
        page_h: 1400,
        region: [0.1, 0.2 / 1.4, 0.6, 0.5 / 1.4],
        image: { unit_id: '11', image: { blob: 'cd'.repeat(32), mime: 'image/jpeg', width: 500, height: 300, bytes: 9000 }, encoder_w: 504, encoder_h: 308, visual_tokens: 198 },
        true_zoom: true,
        of_crop: false,
      },
    }),
    ev({ kind: 'content', step: 3, text: '<think>Found it.</think><answer>Revenue was' }),
    ev({ kind: 'content', step: 3, text: ' $4.2M.</answer>' }),
    ev({
      kind: 'answer',
      step: 3,
      answer: {
        text: 'Revenue was $4.2M.',
        citations: [{ unit_id: '11', document_id: '2', document_name: 'report.pdf', page: 3, region: [0.1, 0.14, 0.6, 0.36] }],
      },
    }),
    ev({
      kind: 'done',
      step: 3,
      done: { status: 'answered', usage: { prompt_tokens: 900, completion_tokens: 80, images: 2, visual_tokens: 700, steps: 3, tool_steps: 2, wall_ms: 4200 } },
    }),
  ]
}
