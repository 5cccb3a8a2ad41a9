// The Compare view's calls to the Go backend (CompareService in backend/desktop/compare.go, generated wrappers) and
// its compare:progress events.
import { t } from '../../i18n'
import { EventCompare, on } from '../../lib/bus'
import { CompareService as Service, LibraryService as Library } from '../../lib/generated/services'
import type { CompareRequest, CompareState } from '../../lib/types'

export type { CompareRequest, CompareState }

/** A document the view offers to compare. */
export interface CompareDoc {
  id: number
  name: string
}

export type CompareFormat = 'csv' | 'xlsx' | 'md'

export interface CompareApi {
  documents(collectionId: number): Promise<CompareDoc[]>
  start(r: CompareRequest): Promise<CompareState>
  stop(): Promise<void>
  state(): Promise<CompareState>
  /** save asks where to save the last table (a dialog in the window's language) and writes it; "" when cancelled. */
  save(format: CompareFormat): Promise<string>
  onProgress(cb: (s: CompareState) => void): () => void
}

export const compareApi: CompareApi = {
  documents: async (collectionId) =>
    ((await Library.Documents(collectionId)) ?? []).filter((d) => d.status === 'ready').map((d) => ({ id: d.id, name: d.name })),
  start: (r) => Service.Start(r),
  stop: () => Service.Stop(),
  state: () => Service.State(),
  save: (format) => Service.Save(format, t('dialog.saveComparison')),
  onProgress: (cb) => on(EventCompare, cb),
}
