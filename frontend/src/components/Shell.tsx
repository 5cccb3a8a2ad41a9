import { useState, type ReactNode } from 'react'
import type { Status } from '../lib/backend'

export type View = 'library' | 'chat' | 'graph' | 'settings' | 'eval'

export const views: { id: View; label: string; hint: string; key: string }[] = [
  { id: 'library', label: 'Library', hint: 'Drop PDFs, images and videos to build your knowledge base.', key: '1' },
  { id: 'chat', label: 'Chat', hint: 'Ask questions; the agent searches, crops and cites pages.', key: '2' },
  { id: 'graph', label: 'Memory graph', hint: 'The reasoning graph of a VimRAG run, live.', key: '3' },
  { id: 'settings', label: 'Settings', hint: 'Model providers, agent defaults, data directory.', key: '4' },
  { id: 'eval', label: 'Evaluation', hint: 'Run a questions file through the agent and score the answers.', key: '5' },
]

type Props = {
  view: View
  onView: (v: View) => void
  status: Status | null
  error: string
  /** One-time messages of this start (a Loupe library adopted), shown until dismissed. */
  notices?: string[]
  children?: ReactNode
}

export function Shell({ view, onView, status, error, notices = [], children }: Props) {
  const current = views.find((v) => v.id === view) ?? views[0]
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◎
          </span>{' '}
          Proofglass
        </div>
        {views.map((v) => (
          <button
            key={v.id}
            className={v.id === view ? 'nav active' : 'nav'}
            aria-current={v.id === view ? 'page' : undefined}
            title={`Ctrl+${v.key}`}
            onClick={() => onView(v.id)}
          >
            {v.label}
          </button>
        ))}
        <footer className="status" data-testid="status">
          {status ? (
            <>
              <span data-testid="version">Proofglass {status.version}</span>
              <span data-testid="collections">
                <span className="nowrap">
                  {status.collections} collection{status.collections === 1 ? '' : 's'}
                </span>{' '}
                · <span className="nowrap">{`${status.documents} document${status.documents === 1 ? '' : 's'}`}</span>
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
        <Notices messages={notices} />
        <header className="view-head">
          <h1>{current.label}</h1>
          <p className="muted">{current.hint}</p>
        </header>
        <div className="view-body">{children}</div>
      </main>
    </div>
  )
}

/** Notices is a banner of one-time messages; each goes away when dismissed and does not come back. */
function Notices({ messages }: { messages: string[] }) {
  const [dismissed, setDismissed] = useState<string[]>([])
  const shown = messages.filter((m) => !dismissed.includes(m))
  if (shown.length === 0) return null
  return (
    <div className="banner" role="status" data-testid="notices">
      {shown.map((m) => (
        <p key={m}>
          <span>{m}</span>
          <button className="link" aria-label="Dismiss" onClick={() => setDismissed((d) => [...d, m])}>
            Dismiss
          </button>
        </p>
      ))}
    </div>
  )
}
