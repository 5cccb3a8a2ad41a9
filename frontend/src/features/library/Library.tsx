import { memo, useCallback, useEffect, useState } from 'react'
import { Thumb } from '../../components/Thumb'
import { Overlay } from '../../components/Overlay'
import { useOpenViewer } from '../../components/viewerContext'
import { useTranslation } from '../../i18n'
import { libraryApi } from './api'
import type { Box4 } from '../../lib/events'
import { formatBytes, formatNumber } from '../../lib/format'
import { regionOf } from '../../lib/geometry'
import type { Collection, Document, DocumentFacets, FacetGroup, IngestProgress, PageRef, RerankInfo, SearchHit } from '../../lib/types'
import { PageGrid } from './PageGrid'
import { documentError, IngestList } from './Progress'
import { DeleteDocument } from './DeleteDocument'
import { Facets } from './Facets'
import { DocumentLinks } from './DocumentLinks'
import { Glance } from './Glance'
import { FacetBrowser, filterDocs, toggle, whereOf, type FacetSelection } from './FacetBrowser'
import { WatchedFolders } from '../watch/WatchedFolders'
import { ArchiveTransfer } from './ArchiveTransfer'

type Props = {
  collections: Collection[]
  current: string
  onCollection: (name: string) => void
  onCollectionsChanged: () => void
  progress: IngestProgress[]
  onAdd: (paths: string[]) => void
  onRetry: (p: IngestProgress, password?: string) => void
  refreshKey: number
  searchRef: React.RefObject<HTMLInputElement | null>
  /** Opens the chat scoped to one document. */
  onAskAbout?: (d: { id: number; name: string }) => void
  /** Called after a document was deleted, so its ingest rows can go too. */
  onDocumentDeleted?: (id: number) => void
}

export function Library(p: Props) {
  const { t } = useTranslation()
  const openViewer = useOpenViewer()
  const coll = p.collections.find((c) => c.name === p.current)
  const [docs, setDocs] = useState<Document[]>([])
  const [open, setOpen] = useState<Document | null>(null)
  const [pages, setPages] = useState<PageRef[]>([])
  const [query, setQuery] = useState('')
  const [where, setWhere] = useState('')
  const [facets, setFacets] = useState<DocumentFacets | null>(null)
  const [facetGroups, setFacetGroups] = useState<FacetGroup[]>([])
  const [chosen, setChosen] = useState<FacetSelection>({})
  const [hits, setHits] = useState<SearchHit[] | null>(null)
  const [notes, setNotes] = useState<string[]>([])
  const [rerank, setRerank] = useState<RerankInfo | undefined>(undefined)
  const [error, setError] = useState('')
  const [newName, setNewName] = useState('')
  const [pathText, setPathText] = useState('')

  useEffect(() => {
    if (!coll) {
      setDocs([])
      return
    }
    libraryApi.documents(coll.id).then((d) => setDocs(d ?? []), (e: unknown) => setError(String(e)))
  }, [coll, p.refreshKey])
  useEffect(() => {
    setChosen({})
  }, [coll?.id])
  useEffect(() => {
    // Again on returning from a document, whose facets may have been edited.
    if (!coll || open) return
    libraryApi.collectionFacets(coll.id).then((g) => setFacetGroups(g ?? []), (e: unknown) => setError(String(e)))
  }, [coll, open, p.refreshKey])
  const choose = (name: string, value: string) => {
    const next = toggle(chosen, name, value)
    setChosen(next)
    setWhere(whereOf(next, facetGroups))
  }
  useEffect(() => {
    if (!open) return
    libraryApi.pages(open.id).then((u) => setPages(u ?? []), (e: unknown) => setError(String(e)))
  }, [open, p.refreshKey])
  useEffect(() => {
    setFacets(null)
    if (!open) return
    libraryApi.facets(open.id).then(setFacets, (e: unknown) => setError(String(e)))
  }, [open, p.refreshKey])

  const deleteOpen = async (d: Document) => {
    await libraryApi.deleteDocument(d.id)
    setOpen(null)
    setDocs((ds) => ds.filter((x) => x.id !== d.id))
    p.onCollectionsChanged() // document and page counts
    p.onDocumentDeleted?.(d.id)
  }

  const runSearch = useCallback(
    (e?: React.FormEvent) => {
      e?.preventDefault()
      if (!query.trim()) {
        setHits(null)
        return
      }
      libraryApi.searchWhere(query, p.current, where.trim(), 20).then(
        (r) => {
          setHits(r.hits ?? [])
          setNotes(r.notes ?? [])
          setRerank(r.rerank)
          setError('')
        },
        (err: unknown) => setError(String(err)),
      )
    },
    [query, where, p.current],
  )

  const pick = async (folder: boolean) => {
    try {
      const paths = folder ? [await libraryApi.pickFolder()].filter(Boolean) : await libraryApi.pickFiles()
      if (paths && paths.length) p.onAdd(paths)
    } catch (e) {
      setError(String(e))
    }
  }

  const create = async (e: React.FormEvent) => {
    e.preventDefault()
    if (!newName.trim()) return
    try {
      await libraryApi.createCollection(newName.trim())
      p.onCollectionsChanged()
      p.onCollection(newName.trim())
      setNewName('')
    } catch (err) {
      setError(String(err))
    }
  }

  const addTyped = (e: React.FormEvent) => {
    e.preventDefault()
    const paths = pathText
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean)
    if (paths.length) p.onAdd(paths)
    setPathText('')
  }

  // Stable, so the (memoised) page grid does not re-render with every ingest progress frame.
  const openPage = useCallback(
    (u: PageRef) => {
      if (open) openViewer({ documentId: open.id, unitId: u.id, title: open.name })
    },
    [open, openViewer],
  )

  const active = p.progress.filter((x) => !x.collection || x.collection === p.current)

  return (
    <div className="library">
      <aside className="collections" aria-label={t('library.collections')}>
        <h2>{t('library.collections')}</h2>
        <ul>
          {p.collections.map((c) => (
            <li key={c.id}>
              <button
                className={c.name === p.current ? 'nav active' : 'nav'}
                aria-current={c.name === p.current ? 'true' : undefined}
                onClick={() => {
                  p.onCollection(c.name)
                  setOpen(null)
                }}
              >
                <span className="ellipsis">{c.name}</span>
                <span className="count">{c.documents}</span>
              </button>
            </li>
          ))}
        </ul>
        <form onSubmit={create} className="new-collection">
          <input
            aria-label={t('library.newCollectionName')}
            placeholder={t('library.newCollection')}
            value={newName}
            onChange={(e) => setNewName(e.target.value)}
          />
        </form>
        <WatchedFolders collection={p.current} onChanged={p.onCollectionsChanged} />
        <ArchiveTransfer collection={p.current} onChanged={p.onCollectionsChanged} />
      </aside>
      <section className="library-main">
        <div className="toolbar">
          <form onSubmit={runSearch} className="search-form" role="search">
            <input
              ref={p.searchRef}
              type="search"
              placeholder={t('library.searchPlaceholder')}
              aria-label={t('library.searchLabel')}
              value={query}
              onChange={(e) => {
                setQuery(e.target.value)
                if (!e.target.value) setHits(null)
              }}
            />
            <input
              className="where"
              aria-label={t('facets.whereLabel')}
              placeholder={t('facets.wherePlaceholder')}
              value={where}
              onChange={(e) => {
                setWhere(e.target.value)
                setChosen({}) // typed by hand: the chips no longer say what the filter is
              }}
            />
            <button type="submit" hidden />
          </form>
          <button onClick={() => pick(false)}>{t('library.addFiles')}</button>
          <button onClick={() => pick(true)}>{t('library.addFolder')}</button>
        </div>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <IngestList items={active} onRetry={p.onRetry} />
        {hits ? (
          <SearchResults
            hits={hits}
            notes={notes}
            rerank={rerank}
            onOpen={(h, regions) =>
              openViewer({ documentId: h.document_id, unitId: h.unit_id, title: h.doc, regions })
            }
          />
        ) : open ? (
          <div className="doc-pages">
            <div className="crumbs">
              <button className="link" onClick={() => setOpen(null)}>
                {p.current}
              </button>
              <span aria-hidden="true">/</span>
              <strong>{open.name}</strong>
              <span className="muted">· {t('library.pageCount', { count: pages.length })}</span>
              {p.onAskAbout && (
                <button className="link" onClick={() => p.onAskAbout?.({ id: open.id, name: open.name })}>
                  {t('library.askAbout')}
                </button>
              )}
              <DeleteDocument name={open.name} onDelete={() => deleteOpen(open)} />
            </div>
            <Facets
              facets={facets}
              onSet={async (name, value) => setFacets(await libraryApi.setFacet(open.id, name, value))}
              onReset={async (name) => setFacets(await libraryApi.resetFacet(open.id, name))}
            />
            <DocumentLinks
              links={facets?.links}
              onOpen={(id) => {
                const d = docs.find((x) => x.id === id)
                if (d) setOpen(d)
              }}
            />
            <Glance
              documentId={open.id}
              load={libraryApi.glance}
              summarize={libraryApi.summarize}
              onOpenPage={(page, region) => {
                const u = pages.find((x) => x.ordinal === page)
                if (u) openViewer({ documentId: open.id, unitId: u.id, title: open.name, regions: region ? [region] : undefined })
              }}
            />
            <PageGrid
              pages={pages}
              label={t('library.pagesOf', { name: open.name })}
              onOpen={openPage}
            />
          </div>
        ) : docs.length === 0 ? (
          <EmptyState collection={p.current} onPick={() => pick(false)} />
        ) : (
          <>
            <FacetBrowser groups={facetGroups} selected={chosen} onToggle={choose} />
            <DocGrid docs={filterDocs(docs, facetGroups, chosen)} onOpen={setOpen} />
          </>
        )}
        <details className="add-path">
          <summary>{t('library.addByPath')}</summary>
          <form onSubmit={addTyped}>
            <textarea
              aria-label={t('library.pathsLabel')}
              rows={2}
              value={pathText}
              onChange={(e) => setPathText(e.target.value)}
              placeholder={t('library.pathPlaceholder')}
            />
            <button type="submit">{t('common.add')}</button>
          </form>
        </details>
      </section>
    </div>
  )
}

function EmptyState({ collection, onPick }: { collection: string; onPick: () => void }) {
  const { t } = useTranslation()
  const [busy, setBusy] = useState(false)
  const [err, setErr] = useState('')
  return (
    <div className="empty" data-testid="empty-state">
      <div className="empty-art" aria-hidden="true">
        ⌕
      </div>
      <h2>{t('library.emptyTitle')}</h2>
      <p>{t('library.emptyBody')}</p>
      <div className="row">
        <button className="primary" onClick={onPick}>
          {t('library.chooseFiles')}
        </button>
        <button
          disabled={busy}
          onClick={() => {
            setBusy(true)
            libraryApi.addSample(collection).then(
              () => setBusy(false),
              (e: unknown) => {
                setBusy(false)
                setErr(String(e))
              },
            )
          }}
        >
          {t('library.trySample')}
        </button>
      </div>
      {err && <p className="error">{err}</p>}
    </div>
  )
}

// Memoised: the library re-renders with every ingest progress frame; the cards change only with the documents.
const DocGrid = memo(function DocGrid({ docs, onOpen }: { docs: Document[]; onOpen: (d: Document) => void }) {
  const { t } = useTranslation()
  return (
    <ul className="doc-grid" aria-label={t('library.documents')} data-testid="doc-grid">
      {docs.map((d) => (
        <li key={d.id}>
          <button className="doc-card" onClick={() => onOpen(d)} data-testid="doc-card" data-status={d.status}>
            <DocCover doc={d} />
            <span className="ellipsis doc-name" title={d.name}>
              {d.name}
            </span>
            <span className="muted">
              {d.kind.toUpperCase()} · {t(d.kind === 'video' ? 'library.clipCount' : 'library.pageCount', { count: d.pages })} ·{' '}
              {formatBytes(d.size_bytes)}
            </span>
            {d.status !== 'ready' && (
              <span className={'badge ' + d.status} title={d.status === 'failed' ? documentError(d) : d.error}>
                {t(`docStatus.${d.status}`, { defaultValue: d.status })}
              </span>
            )}
          </button>
        </li>
      ))}
    </ul>
  )
})

function DocCover({ doc }: { doc: Document }) {
  const { t } = useTranslation()
  const [first, setFirst] = useState<PageRef | null>(null)
  const [tries, setTries] = useState(0)
  // Asked again as the document progresses: its first page may not exist when the card first shows, and while it
  // is being ingested the pages appear without the document changing, so ask again a little later.
  useEffect(() => {
    if (first?.thumb || doc.pages === 0 || doc.status === 'failed') return
    let live = true
    let timer = 0
    libraryApi.cover(doc.id).then(
      (u) => {
        if (!live) return
        setFirst(u ?? null)
        if (!u && doc.status !== 'ready') timer = window.setTimeout(() => live && setTries((n) => n + 1), 1500)
      },
      () => {},
    )
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [doc.id, doc.pages, doc.status, doc.updated_at, first?.thumb, tries])
  if (doc.status === 'failed')
    return (
      <div className="thumb placeholder cover failed-cover" role="img" aria-label={t('library.couldNotReadNamed', { name: doc.name })}>
        {t('library.couldNotRead')}
      </div>
    )
  if (!first) return <div className="thumb placeholder cover" />
  return <Thumb blob={first.thumb} unitId={first.id} alt={t('library.firstPageOf', { name: doc.name })} className="cover" />
}

export function SearchResults({
  hits,
  notes,
  rerank,
  onOpen,
}: {
  hits: SearchHit[]
  notes: string[]
  rerank?: RerankInfo
  onOpen: (h: SearchHit, regions: Box4[]) => void
}) {
  const { t } = useTranslation()
  return (
    <section aria-label={t('library.searchResults')} data-testid="search-results">
      <p className="muted">
        {t('library.results', { count: hits.length })}
        {notes.length > 0 && <span title={notes.join('\n')}> · {t('library.notes', { count: notes.length })}</span>}
        {rerank?.reranked && (
          <span title={rerank.reranker} data-testid="rerank-note">
            {' '}
            · {t('library.reranked', { count: rerank.candidates, ms: formatNumber(rerank.ms, 0) })}
          </span>
        )}
      </p>
      {rerank && !rerank.reranked && (
        <p className="error" role="status" title={rerank.error} data-testid="rerank-failed">
          {t('library.rerankFailed', { reranker: rerank.reranker })}
        </p>
      )}
      <ul className="hits">
        {hits.map((h) => {
          const regions = (h.boxes ?? []).map((b) => regionOf([b.x0, b.y0, b.x1, b.y1], h.width, h.height))
          return (
            <li key={h.unit_id}>
              <button className="hit" onClick={() => onOpen(h, regions)} data-testid="hit">
                <div className="hit-thumb">
                  <Thumb blob={h.thumb} unitId={h.unit_id} alt={t('library.hitAlt', { doc: h.doc, page: h.page })} />
                  <Overlay regions={regions} label={t('library.match')} />
                </div>
                <div className="hit-text">
                  <strong className="ellipsis">
                    {t('library.hitTitle', { doc: h.doc, page: h.page })}
                  </strong>
                  {h.snippet && <span className="snippet">{h.snippet}</span>}
                  <span className="muted">
                    {h.rerank != null
                      ? t('library.rerankScore', { score: formatNumber(h.rerank, 3), rank: h.first_rank ?? 0 })
                      : t('library.score', { score: formatNumber(h.score, 4) })}
                  </span>
                </div>
              </button>
            </li>
          )
        })}
      </ul>
    </section>
  )
}
