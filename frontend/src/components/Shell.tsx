import type { Status } from '../lib/backend'

export type View = 'library' | 'chat' | 'graph' | 'settings'

const views: { id: View; label: string; hint: string }[] = [
  { id: 'library', label: 'Library', hint: 'Drop PDFs, images and videos to build your knowledge base.' },
  { id: 'chat', label: 'Chat', hint: 'Ask questions; the agent searches, crops and cites pages.' },
  { id: 'graph', label: 'Memory graph', hint: 'The reasoning graph of a VimRAG run, live.' },
  { id: 'settings', label: 'Settings', hint: 'Model providers, agent defaults, data directory.' },
]

type Props = {
  view: View
  onView: (v: View) => void
  status: Status | null
  error: string
}

export function Shell({ view, onView, status, error }: Props) {
  const current = views.find((v) => v.id === view) ?? views[0]
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">Loupe</div>
        {views.map((v) => (
          <button
            key={v.id}
            className={v.id === view ? 'nav active' : 'nav'}
            aria-current={v.id === view ? 'page' : undefined}
            onClick={() => onView(v.id)}
          >
            {v.label}
          </button>
        ))}
        <footer className="status" data-testid="status">
          {status ? (
            <>
              <span data-testid="version">Loupe {status.version}</span>
              <span data-testid="collections">
                {status.collections} collection{status.collections === 1 ? '' : 's'} · {status.documents} document
                {status.documents === 1 ? '' : 's'}
              </span>
              <span className="muted" title={status.data_dir}>
                {status.data_dir}
              </span>
            </>
          ) : (
            <span className="muted">{error || 'Connecting…'}</span>
          )}
        </footer>
      </nav>
      <main className="content">
        <h1>{current.label}</h1>
        <p className="muted">{current.hint}</p>
      </main>
    </div>
  )
}
