// Watched folders: the typed face of the Go WatchService binding (generated wrappers) and its watch:status events.
import { EventWatch, on } from '../../lib/bus'
import { hasBackend, WatchService } from '../../lib/generated/services'
import { t } from '../../i18n'
import type { WatchStatus } from '../../lib/types'

/** WatchStatus is backend/watch's Status (generated from Go); state is idle, watching, scanning or missing. */
export type { WatchStatus }

/** WatchAPI is what the watched-folders panel needs; tests pass their own. */
export interface WatchAPI {
  folders: () => Promise<WatchStatus[]>
  /** add opens the system folder dialog (titled in the window's language); a cancelled dialog gives a folder with id 0. */
  add: (collection: string) => Promise<{ id: number }>
  remove: (id: number, keepDocuments: boolean) => Promise<number>
  onStatus: (cb: (s: WatchStatus) => void) => () => void
}

/** watchBackend is the real API (usable where available() is true). */
export const watchBackend: WatchAPI | undefined = {
  folders: async () => (await WatchService.Folders()) ?? [],
  add: (collection: string) => WatchService.Add(collection, t('dialog.watchFolder', { collection })),
  remove: (id: number, keep: boolean) => WatchService.Remove(id, keep),
  onStatus: (cb: (s: WatchStatus) => void) => on(EventWatch, cb),
}

/** available reports whether the Wails runtime is there (false in unit tests and plain browsers). */
export function available(): boolean {
  return hasBackend()
}

/** describe is a folder's status in a few words: "watching", "scanning · 3 pending", "missing". */
export function describe(s: WatchStatus): string {
  const parts: string[] = [t(`watch.state.${s.state}`, { defaultValue: s.state })]
  if (s.pending > 0) parts.push(t('watch.pending', { count: s.pending }))
  return parts.join(' · ')
}

/** merge folds a status event into the list: the latest (highest seq) status of each folder wins. */
export function merge(list: WatchStatus[], s: WatchStatus): WatchStatus[] {
  const old = list.find((f) => f.id === s.id)
  if (!old) return [...list, s]
  if (old.seq > s.seq) return list
  return list.map((f) => (f.id === s.id ? s : f))
}
