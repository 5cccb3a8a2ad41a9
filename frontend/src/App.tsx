import { useEffect, useState } from 'react'
import { backend, hasBackend, type Status } from './lib/backend'
import { Shell, type View } from './components/Shell'

export function App() {
  const [view, setView] = useState<View>('library')
  const [status, setStatus] = useState<Status | null>(null)
  const [error, setError] = useState<string>('')

  useEffect(() => {
    if (!hasBackend()) {
      setError('Backend not connected')
      return
    }
    backend.status().then(setStatus, (e: unknown) => setError(String(e)))
  }, [])

  return <Shell view={view} onView={setView} status={status} error={error} />
}
