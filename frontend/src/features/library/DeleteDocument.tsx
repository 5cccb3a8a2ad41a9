import { useState } from 'react'
import { useTranslation } from '../../i18n'

type Props = {
  name: string
  /** Deletes the document; the caller then leaves its page. */
  onDelete: () => Promise<void>
}

/** DeleteDocument removes a document from the library after the user confirms, naming what goes with it. */
export function DeleteDocument({ name, onDelete }: Props) {
  const { t } = useTranslation()
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  if (!asking) {
    return (
      <button className="link" onClick={() => setAsking(true)}>
        {t('delete.button')}
      </button>
    )
  }
  const confirm = async () => {
    setBusy(true)
    setError('')
    try {
      await onDelete()
    } catch (e: unknown) {
      setError(String(e))
      setBusy(false)
    }
  }
  return (
    <span role="group" aria-label={t('delete.group', { name })} className="confirm-delete">
      <span>{t('delete.confirm', { name })}</span>
      <button className="danger" onClick={confirm} disabled={busy}>
        {t('common.delete')}
      </button>
      <button
        className="link"
        onClick={() => {
          setAsking(false)
          setError('')
        }}
        disabled={busy}
      >
        {t('common.cancel')}
      </button>
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </span>
  )
}
