import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from '../../i18n'
import { available, describe, merge, watchBackend, type WatchAPI, type WatchStatus } from './watch'

type Props = {
  collection: string
  /** called after a folder is added or removed (document counts change) */
  onChanged?: () => void
  api?: WatchAPI
}

/** WatchedFolders lists the folders a collection watches, with their live status, and adds or removes them. */
export function WatchedFolders({ collection, onChanged, api }: Props) {
  const { t } = useTranslation()
  const w = api ?? (available() ? watchBackend : undefined)
  const [folders, setFolders] = useState<WatchStatus[]>([])
  const [error, setError] = useState('')
  const [keep, setKeep] = useState(false)

  const load = useCallback(() => {
    if (!w) return
    w.folders().then((f) => setFolders(f ?? []), (e: unknown) => setError(String(e)))
  }, [w])
  useEffect(load, [load])
  useEffect(() => {
    if (!w) return
    return w.onStatus((s) => setFolders((fs) => merge(fs, s)))
  }, [w])

  if (!w) return null
  const mine = folders.filter((f) => f.collection === collection)

  const add = async () => {
    try {
      const f = await w.add(collection)
      setError('')
      if (f.id) {
        load()
        onChanged?.()
      }
    } catch (e) {
      setError(String(e))
    }
  }
  const remove = async (f: WatchStatus) => {
    try {
      await w.remove(f.id, keep)
      setFolders((fs) => fs.filter((x) => x.id !== f.id))
      setError('')
      onChanged?.()
    } catch (e) {
      setError(String(e))
    }
  }

  return (
    <section className="watched" aria-label={t('watch.title')}>
      <h3>{t('watch.title')}</h3>
      {mine.length === 0 && <p className="muted">{t('watch.none')}</p>}
      <ul>
        {mine.map((f) => (
          <li key={f.id} className={f.last_error ? 'watched-folder has-error' : 'watched-folder'}>
            <span className="ellipsis" title={f.path}>
              {f.path}
            </span>
            <span className={`watch-state ${f.state}`} data-testid={`watch-state-${f.id}`}>
              {describe(f)}
            </span>
            <span className="muted">
              {t('watch.documents', { count: f.documents })}
            </span>
            {f.last_error && (
              <span role="alert" className="error">
                {f.last_error}
              </span>
            )}
            <button className="link" onClick={() => remove(f)} aria-label={t('watch.stopWatching', { path: f.path })}>
              {t('watch.remove')}
            </button>
          </li>
        ))}
      </ul>
      {mine.length > 0 && (
        <label className="muted">
          <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} /> {t('watch.keep')}
        </label>
      )}
      <button onClick={add}>{t('watch.add')}</button>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  )
}
