import { useState } from 'react'
import { useTranslation } from '../../i18n'
import { archiveAvailable, archiveBackend, type ArchiveAPI } from './archive'

type Props = {
  /** the collection the export writes */
  collection: string
  /** called after an import (collections and their counts change) */
  onChanged?: () => void
  api?: ArchiveAPI
}

/** ArchiveTransfer exports the current collection to a library archive and imports one into the library. */
export function ArchiveTransfer({ collection, onChanged, api }: Props) {
  const { t } = useTranslation()
  const a = api ?? (archiveAvailable() ? archiveBackend : undefined)
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState('')
  const [error, setError] = useState('')
  if (!a) return null

  const run = async (what: () => Promise<string | null>) => {
    setBusy(true)
    setError('')
    setMessage('')
    try {
      const m = await what()
      if (m) setMessage(m)
    } catch (e) {
      setError(String(e))
    } finally {
      setBusy(false)
    }
  }
  const exportIt = () =>
    run(async () => {
      const r = await a.exportCollection(collection)
      if (!r) return null
      return t('archive.exported', { count: r.report.counts?.documents ?? 0, path: r.path })
    })
  const importIt = () =>
    run(async () => {
      const r = await a.importArchive()
      if (!r) return null
      onChanged?.()
      return t('archive.imported', { count: r.added?.documents ?? 0, existing: r.existing?.documents ?? 0 })
    })

  return (
    <section className="archive" aria-label={t('archive.title')}>
      <h3>{t('archive.title')}</h3>
      <button className="link" onClick={exportIt} disabled={busy || !collection}>
        {t('archive.export', { collection })}
      </button>
      <button className="link" onClick={importIt} disabled={busy}>
        {t('archive.import')}
      </button>
      {busy && <p className="muted">{t('archive.working')}</p>}
      {message && <p role="status">{message}</p>}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  )
}
