import { useState } from 'react'

type Props = {
  name: string
  /** Deletes the document; the caller then leaves its page. */
  onDelete: () => Promise<void>
}

/** DeleteDocument removes a document from the library after the user confirms, naming what goes with it. */
export function DeleteDocument({ name, onDelete }: Props) {
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  if (!asking) {
    return (
      <button className="link" onClick={() => setAsking(true)}>
        Delete document…
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
    <span role="group" aria-label={`Delete ${name}`} className="confirm-delete">
      <span>Delete {name} and its pages from the library? This cannot be undone.</span>
      <button className="danger" onClick={confirm} disabled={busy}>
        Delete
      </button>
      <button
        className="link"
        onClick={() => {
          setAsking(false)
          setError('')
        }}
        disabled={busy}
      >
        Cancel
      </button>
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </span>
  )
}
