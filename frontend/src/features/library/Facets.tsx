import { useState } from 'react'
import { useTranslation } from '../../i18n'
import type { DocumentFacets, Facets as FacetValues } from '../../lib/types'

/** The facets in the order they are shown; their names are the backend's (backend/facets). */
const names = ['title', 'org', 'kind', 'year', 'quarter', 'date', 'from', 'to'] as const
type Name = (typeof names)[number]
/** Facets only e-mails have: shown when a document has them. */
const mailOnly: readonly Name[] = ['from', 'to']

type Props = {
  facets: DocumentFacets | null
  /** Sets the user's value of a facet ('' clears it); it wins over extraction and survives re-ingest. */
  onSet: (name: Name, value: string) => Promise<void>
  /** Forgets the user's value, so the extracted one shows again. */
  onReset: (name: Name) => Promise<void>
}

/** Facets shows what a document is — title, organisation, kind, period, date — and lets the user correct each. */
export function Facets({ facets, onSet, onReset }: Props) {
  const { t } = useTranslation()
  const [editing, setEditing] = useState<Name | null>(null)
  const [draft, setDraft] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  if (!facets) return null
  const values: FacetValues = facets.facets
  const user = facets.user ?? {}

  const run = async (fn: () => Promise<void>) => {
    setBusy(true)
    setError('')
    try {
      await fn()
      setEditing(null)
    } catch (e: unknown) {
      setError(String(e))
    } finally {
      setBusy(false)
    }
  }

  return (
    <section className="facets" aria-label={t('facets.label')} data-testid="facets">
      <dl>
        {names.map((n) => {
          const label = t(`facets.${n}`)
          const v = values[n] ?? ''
          if (mailOnly.includes(n) && !v && !user[n] && editing !== n) return null
          return (
            <div key={n} className={editing === n ? 'facet-row editing' : 'facet-row'}>
              <dt>{label}</dt>
              <dd>
                {editing === n ? (
                  <form
                    onSubmit={(e) => {
                      e.preventDefault()
                      void run(() => onSet(n, draft.trim()))
                    }}
                  >
                    <input
                      aria-label={t('facets.newValue', { facet: label })}
                      value={draft}
                      list={n === 'kind' ? 'facet-kinds' : undefined}
                      onChange={(e) => setDraft(e.target.value)}
                      autoFocus
                    />
                    {n === 'kind' && (
                      <datalist id="facet-kinds">
                        {(facets.kinds ?? []).map((k) => (
                          <option key={k} value={k} />
                        ))}
                      </datalist>
                    )}
                    <button type="submit" disabled={busy}>
                      {t('facets.save')}
                    </button>
                    <button type="button" className="link" onClick={() => setEditing(null)} disabled={busy}>
                      {t('common.cancel')}
                    </button>
                  </form>
                ) : (
                  <>
                    <span className={v ? 'facet-value' : 'facet-value muted'}>{v || t('common.none')}</span>
                    {user[n] && <span className="badge">{t('facets.edited')}</span>}
                    <button
                      className="link"
                      aria-label={t('facets.edit', { facet: label })}
                      onClick={() => {
                        setDraft(v)
                        setEditing(n)
                        setError('')
                      }}
                    >
                      {t('facets.editShort')}
                    </button>
                    {user[n] && (
                      <button
                        className="link"
                        aria-label={t('facets.reset', { facet: label })}
                        disabled={busy}
                        onClick={() => void run(() => onReset(n))}
                      >
                        {t('facets.resetShort')}
                      </button>
                    )}
                  </>
                )}
              </dd>
            </div>
          )
        })}
      </dl>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  )
}
