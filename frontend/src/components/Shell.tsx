import { useState, type ReactNode } from 'react'
import { i18n, useTranslation } from '../i18n'
import type { Status } from '../lib/types'
import type { Notice } from '../lib/types'

export type View = 'library' | 'chat' | 'graph' | 'settings' | 'eval' | 'compare'

/** The views in the sidebar; each one's label and hint are nav.<id>.label and nav.<id>.hint in the catalogue. */
export const views: { id: View; key: string }[] = [
  { id: 'library', key: '1' },
  { id: 'chat', key: '2' },
  { id: 'graph', key: '3' },
  { id: 'settings', key: '4' },
  { id: 'eval', key: '5' },
  { id: 'compare', key: '6' },
]

type Props = {
  view: View
  onView: (v: View) => void
  status: Status | null
  error: string
  /** One-time messages of this start (a Loupe library adopted), shown until dismissed. */
  notices?: Notice[]
  children?: ReactNode
}

export function Shell({ view, onView, status, error, notices = [], children }: Props) {
  const { t } = useTranslation()
  const current = views.find((v) => v.id === view) ?? views[0]
  return (
    <div className="shell">
      <nav className="sidebar" aria-label={t('nav.main')}>
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
            title={t('nav.shortcut', { key: v.key })}
            onClick={() => onView(v.id)}
          >
            {t(`nav.${v.id}.label`)}
          </button>
        ))}
        <footer className="status" data-testid="status">
          {status ? (
            <>
              <span data-testid="version">{t('shell.version', { version: status.version })}</span>
              <span data-testid="collections">
                <span className="nowrap">{t('shell.collections', { count: status.collections })}</span>{' '}
                · <span className="nowrap">{t('shell.documents', { count: status.documents })}</span>
              </span>
              <span className="muted" title={status.data_dir}>
                {status.data_dir}
              </span>
            </>
          ) : (
            <span className="muted">{error || t('shell.connecting')}</span>
          )}
        </footer>
      </nav>
      <main className="content">
        <Notices messages={notices} />
        <header className="view-head">
          <h1>{t(`nav.${current.id}.label`)}</h1>
          <p className="muted">{t(`nav.${current.id}.hint`)}</p>
        </header>
        <div className="view-body">{children}</div>
      </main>
    </div>
  )
}

/** Notices is a banner of one-time messages; each goes away when dismissed and does not come back. A notice is
 * shown in the window's language when the catalogue has its code (backend.notice.<code>), else in the backend's
 * English. */
function Notices({ messages }: { messages: Notice[] }) {
  const { t } = useTranslation()
  const [dismissed, setDismissed] = useState<string[]>([])
  const shown = messages.filter((m) => !dismissed.includes(m.message))
  if (shown.length === 0) return null
  const text = (n: Notice) => {
    const key = `backend.notice.${n.code}`
    return n.code && i18n.exists(key) ? t(key, { ...n.params }) : n.message
  }
  return (
    <div className="banner" role="status" data-testid="notices">
      {shown.map((m) => (
        <p key={m.message}>
          <span title={m.message}>{text(m)}</span>
          <button className="link" aria-label={t('common.dismiss')} onClick={() => setDismissed((d) => [...d, m.message])}>
            {t('common.dismiss')}
          </button>
        </p>
      ))}
    </div>
  )
}
