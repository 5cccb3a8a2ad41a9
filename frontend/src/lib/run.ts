// Folds an agent event stream into what the chat shows: step cards, thinking, the streamed answer, the graph.
import type {
  AgentEvent,
  AnswerInfo,
  CalculationInfo,
  CropInfo,
  DoneInfo,
  ErrorInfo,
  GraphInfo,
  GroundingInfo,
  MemorizeInfo,
  ResultsInfo,
  RewriteInfo,
  RunInfo,
} from './events'

export type Step =
  | { type: 'think'; seq: number; step: number; text: string }
  | { type: 'search'; seq: number; step: number; query: string; nodeId?: string; results?: ResultsInfo }
  | { type: 'crop'; seq: number; step: number; crop: CropInfo }
  | { type: 'memorize'; seq: number; step: number; memorize: MemorizeInfo }
  | { type: 'calculation'; seq: number; step: number; calculation: CalculationInfo }
  | { type: 'error'; seq: number; step: number; error: ErrorInfo }

export interface RunView {
  runId: string
  info?: RunInfo
  /** How the question was understood in its conversation (a follow-up's standalone form). */
  rewrite?: RewriteInfo
  steps: Step[]
  /** Raw model output of the current step (tags included), for the live answer preview. */
  content: string
  contentStep: number
  graph?: GraphInfo
  memories: Record<string, MemorizeInfo>
  answer?: AnswerInfo
  /** The answer's figures and names checked against the pages it cites (after the answer, before done). */
  grounding?: GroundingInfo
  done?: DoneInfo
  lastSeq: number
  /** Events that arrived ahead of a gap (the dev server's websocket does not keep order), by seq. */
  pending: Record<number, AgentEvent>
}

export function emptyRun(runId = ''): RunView {
  return { runId, steps: [], content: '', contentStep: 0, memories: {}, lastSeq: 0, pending: {} }
}

/**
 * reduceRun applies one event in seq order: events already applied (seq ≤ lastSeq) are ignored, so replays are
 * idempotent, and an event that arrives early waits in pending until the ones before it have come.
 */
export function reduceRun(v: RunView, ev: AgentEvent): RunView {
  if (ev.seq <= v.lastSeq || v.pending[ev.seq]) return v
  if (ev.seq > v.lastSeq + 1) return { ...v, pending: { ...v.pending, [ev.seq]: ev } }
  let next = applyEvent(v, ev)
  for (let e = next.pending[next.lastSeq + 1]; e; e = next.pending[next.lastSeq + 1]) {
    const rest = { ...next.pending }
    delete rest[e.seq]
    next = applyEvent({ ...next, pending: rest }, e)
  }
  return next
}

function applyEvent(v: RunView, ev: AgentEvent): RunView {
  const next: RunView = { ...v, lastSeq: ev.seq, runId: v.runId || ev.run_id }
  const steps = v.steps
  switch (ev.kind) {
    case 'run_started':
      next.info = ev.run
      break
    case 'rewrite':
      next.rewrite = ev.rewrite
      break
    case 'thinking': {
      const last = steps[steps.length - 1]
      if (last && last.type === 'think' && last.step === ev.step) {
        next.steps = [...steps.slice(0, -1), { ...last, text: last.text + (ev.text ?? '') }]
      } else {
        next.steps = [...steps, { type: 'think', seq: ev.seq, step: ev.step, text: ev.text ?? '' }]
      }
      break
    }
    case 'content': {
      if (ev.step !== v.contentStep) {
        // A new model call: the previous call's <think> text becomes a collapsed thinking card.
        const prev = splitContent(v.content).think
        if (prev) next.steps = insertThink(steps, v.contentStep, prev, ev.seq)
        next.content = ev.text ?? ''
        next.contentStep = ev.step
      } else {
        next.content = v.content + (ev.text ?? '')
      }
      break
    }
    case 'search':
      if (ev.search) {
        next.steps = [...steps, { type: 'search', seq: ev.seq, step: ev.step, query: ev.search.query, nodeId: ev.search.node_id }]
      }
      break
    case 'results': {
      const r = ev.results
      if (!r) break
      let i = steps.length - 1
      while (i >= 0) {
        const s = steps[i]
        if (s.type === 'search' && !s.results && s.query === r.query) break
        i--
      }
      if (i >= 0) {
        const s = steps[i] as Extract<Step, { type: 'search' }>
        next.steps = [...steps.slice(0, i), { ...s, results: r }, ...steps.slice(i + 1)]
      } else {
        next.steps = [...steps, { type: 'search', seq: ev.seq, step: ev.step, query: r.query, nodeId: r.node_id, results: r }]
      }
      break
    }
    case 'crop':
      if (ev.crop) next.steps = [...steps, { type: 'crop', seq: ev.seq, step: ev.step, crop: ev.crop }]
      break
    case 'memorize':
      if (ev.memorize) {
        next.steps = [...steps, { type: 'memorize', seq: ev.seq, step: ev.step, memorize: ev.memorize }]
        next.memories = { ...v.memories, [ev.memorize.node_id]: ev.memorize }
      }
      break
    case 'calculation':
      if (ev.calculation) next.steps = [...steps, { type: 'calculation', seq: ev.seq, step: ev.step, calculation: ev.calculation }]
      break
    case 'graph':
      next.graph = ev.graph
      break
    case 'answer':
      next.answer = ev.answer
      break
    case 'grounding':
      next.grounding = ev.grounding
      break
    case 'error':
      if (ev.error) next.steps = [...steps, { type: 'error', seq: ev.seq, step: ev.step, error: ev.error }]
      break
    case 'done': {
      next.done = ev.done
      const think = splitContent(v.content).think
      if (think) next.steps = insertThink(next.steps, v.contentStep, think, ev.seq)
      break
    }
  }
  return next
}

function insertThink(steps: Step[], step: number, text: string, seq: number): Step[] {
  if (steps.some((s) => s.type === 'think' && s.step === step)) return steps
  // Place it before the first card of its step, so the reasoning reads before the action it led to.
  const at = steps.findIndex((s) => s.step === step)
  const card: Step = { type: 'think', seq, step, text }
  return at < 0 ? [...steps, card] : [...steps.slice(0, at), card, ...steps.slice(at)]
}

export function replayRun(events: AgentEvent[]): RunView {
  return [...events].sort((a, b) => a.seq - b.seq).reduce(reduceRun, emptyRun())
}

/** splitContent separates a model turn into its <think> text and its (possibly unfinished) <answer> text. */
export function splitContent(text: string): { think: string; answer: string } {
  const think = between(text, '<think>', '</think>')
  const answer = between(text, '<answer>', '</answer>')
  return { think: think.trim(), answer: answer.trim() }
}

function between(text: string, open: string, close: string): string {
  const i = text.indexOf(open)
  if (i < 0) return ''
  const rest = text.slice(i + open.length)
  const j = rest.indexOf(close)
  return j < 0 ? rest : rest.slice(0, j)
}

/** liveAnswer is what the answer area shows while a run streams: the final answer once known, else the partial one. */
export function liveAnswer(v: RunView): string {
  if (v.answer) return v.answer.text
  return splitContent(v.content).answer
}

export function isRunning(v: RunView): boolean {
  return v.lastSeq > 0 && !v.done
}
