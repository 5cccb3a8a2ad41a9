// Library archives: the typed face of LibraryService's export and import bindings (generated wrappers).
import { t } from '../../i18n'
import { hasBackend, LibraryService as Library } from '../../lib/generated/services'
import type { ExportReport, ImportReport } from '../../lib/types'

/** ArchiveAPI is what the archive panel needs; tests pass their own. */
export interface ArchiveAPI {
  /** exportCollection asks where to save (a dialog in the window's language) and writes the archive; null when cancelled. */
  exportCollection: (collection: string) => Promise<{ path: string; report: ExportReport } | null>
  /** importArchive asks for an archive (a dialog in the window's language) and imports it; null when cancelled. */
  importArchive: () => Promise<ImportReport | null>
}

/** archiveBackend is the real API (usable where hasBackend() is true). */
export const archiveBackend: ArchiveAPI = {
  exportCollection: async (collection) => {
    const path = await Library.ChooseArchivePath(t('archive.exportDialog'), `${collection}.zip`)
    if (!path) return null
    const report = await Library.ExportCollections(path, [collection])
    return report ? { path, report } : null
  },
  importArchive: () => Library.ImportArchive(t('archive.importDialog'), ''),
}

export const archiveAvailable = (): boolean => hasBackend()
