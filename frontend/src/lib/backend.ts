// The typed face of the Go backend: the Wails bindings in wailsjs/, re-exported so features import from one place.
import * as App from '../../wailsjs/go/main/App'
import type { main } from '../../wailsjs/go/models'

export type Status = main.Status

export const backend = {
  status: (): Promise<Status> => App.Status(),
}

// hasBackend reports whether the Wails runtime is present (false in unit tests and plain browsers).
export function hasBackend(): boolean {
  const w = window as unknown as { go?: { main?: { App?: unknown } } }
  return Boolean(w.go?.main?.App)
}
