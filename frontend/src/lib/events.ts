// The agent's event stream (backend/agent/event.go), generated from Go: field names are the JSON contract. One payload
// field is set per event: the one named by kind (text for thinking and content).
import type { RunStatus } from './generated/types'

export type * from './generated/types'

/** Status is how a run ended. */
export type Status = RunStatus

/** A box as [x0, y0, x1, y1]. */
export type Box4 = [number, number, number, number]

export const modes = ['vrag', 'vimrag', 'vanilla', 'react'] as const
export type Mode = (typeof modes)[number]
