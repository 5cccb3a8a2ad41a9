// The kinds, years and organisations of a collection's documents, as chips that filter the document grid (and set
// the facet filter a search then uses).
import { useTranslation } from '../../i18n'
import type { Document, FacetGroup } from '../../lib/types'

/** FacetSelection is the value chosen per facet name. */
export type FacetSelection = Record<string, string>

/** toggle chooses value for a facet, or clears it when it was the one chosen. */
export function toggle(sel: FacetSelection, name: string, value: string): FacetSelection {
  const next = { ...sel }
  if (next[name] === value) delete next[name]
  else next[name] = value
  return next
}

/** whereOf is the facet filter of a selection ("kind=10-K,year=2022"), in the order the groups come. */
export function whereOf(sel: FacetSelection, groups: FacetGroup[]): string {
  return groups
    .filter((g) => sel[g.name] !== undefined)
    .map((g) => `${g.name}=${sel[g.name]}`)
    .join(',')
}

/** filterDocs keeps the documents that have every chosen value. */
export function filterDocs(docs: Document[], groups: FacetGroup[], sel: FacetSelection): Document[] {
  const sets: Set<number>[] = []
  for (const g of groups) {
    const v = sel[g.name]
    if (v === undefined) continue
    sets.push(new Set((g.values ?? []).find((c) => c.value === v)?.documents ?? []))
  }
  if (sets.length === 0) return docs
  return docs.filter((d) => sets.every((s) => s.has(d.id)))
}

export function FacetBrowser({ groups, selected, onToggle }: { groups: FacetGroup[]; selected: FacetSelection; onToggle: (name: string, value: string) => void }) {
  const { t } = useTranslation()
  if (groups.length === 0) return null
  return (
    <div className="facet-browser" role="group" aria-label={t('facets.browseLabel')} data-testid="facet-browser">
      {groups.map((g) => (
        <div key={g.name} className="facet-group">
          <span className="muted facet-name">{t(`facets.${g.name}`)}</span>
          {(g.values ?? []).map((v) => {
            const on = selected[g.name] === v.value
            return (
              <button
                key={v.value}
                type="button"
                className={on ? 'chip ellipsis active' : 'chip ellipsis'}
                title={v.value}
                aria-pressed={on}
                onClick={() => onToggle(g.name, v.value)}
                data-testid="facet-chip"
              >
                {t('facets.choice', { value: v.value, count: v.documents?.length ?? 0 })}
              </button>
            )
          })}
          {g.more > 0 && <span className="muted small">{t('facets.more', { count: g.more })}</span>}
        </div>
      ))}
    </div>
  )
}
