// Typed subscriptions to the window's events: their names and payloads are generated from Go (./generated/events.ts).
import { EventsOn } from '../../wailsjs/runtime/runtime'
import type { EventName, EventPayloads } from './generated/events'

export { EventAgent, EventCompare, EventEval, EventIngest, EventOpenFiles, EventPull, EventWatch, eventNames } from './generated/events'
export type { EventName, EventPayloads } from './generated/events'

/** on subscribes cb to one of the window's events, with the payload Go sends under that name; returns the unsubscribe
 * function. */
export function on<E extends EventName>(name: E, cb: (payload: EventPayloads[E]) => void): () => void {
  return EventsOn(name, cb)
}
