import { useCallback, useEffect, useRef, useState } from 'react'
import { PageViewer } from './components/PageViewer'
import { Shell, views, type View } from './components/Shell'
import { ViewerContext, type ViewerTarget } from './components/viewerContext'
import { Chat, type ScopeDoc } from './features/chat/Chat'
import { useChat } from './features/chat/useChat'
import { Compare } from './features/compare/Compare'
import { Evaluation } from './features/eval/Evaluation'
import { SearchQuality } from './features/eval/SearchQuality'
import { GraphView } from './features/graph/GraphView'
import { Library } from './features/library/Library'
import { Settings } from './features/settings/Settings'
import { useTranslation } from './i18n'
import { libraryApi, onIngestProgress } from './features/library/api'
import { settingsApi } from './features/settings/api'
import { onFilesDropped } from './lib/fileDrop'
import { hasBackend } from './lib/generated/services'
import { onOpenFiles } from './lib/openFiles'
import { foldProgress, progressState, type Collection, type IngestProgress, type Notice, type Settings as SettingsT, type Status } from './lib/types'

export function App() {
  const { t } = useTranslation()
  const [view, setView] = useState<View>('library')
  const [status, setStatus] = useState<Status | null>(null)
  const [error, setError] = useState<string>('')
  const [collections, setCollections] = useState<Collection[]>([])
  const [collection, setCollection] = useState('')
  const [loaded, setLoaded] = useState(false) // collections known, so opened files go to the current one
  const [progress, setProgress] = useState<Record<string, IngestProgress>>({})
  const [refreshKey, setRefreshKey] = useState(0)
  const [viewer, setViewer] = useState<ViewerTarget | null>(null)
  const [settings, setSettings] = useState<SettingsT | null>(null)
  const [graphRun, setGraphRun] = useState('')
  const [dragging, setDragging] = useState(false)
  const searchRef = useRef<HTMLInputElement>(null)
  const questionRef = useRef<HTMLTextAreaElement>(null)
  const chat = useChat()
  const [scope, setScope] = useState<ScopeDoc[]>([])
  // A scope names documents of one collection; another collection starts unscoped.
  useEffect(() => setScope([]), [collection])

  const refresh = useCallback(() => {
    if (!hasBackend()) {
      setError(t('app.backendNotConnected'))
      return
    }
    libraryApi.status().then(setStatus, (e: unknown) => setError(String(e)))
    libraryApi.collections().then(
      (cs) => {
        setCollections(cs ?? [])
        setCollection((cur) => cur || cs?.[0]?.name || '')
        setLoaded(true)
      },
      () => setLoaded(true),
    )
  }, [t])
  useEffect(refresh, [refresh])
  useEffect(() => {
    if (hasBackend()) settingsApi.settings().then(setSettings, () => {})
  }, [])
  // Messages of this start the backend gives once (a Loupe library adopted), shown until dismissed.
  const [notices, setNotices] = useState<Notice[]>([])
  useEffect(() => {
    if (hasBackend()) libraryApi.notices().then((n) => setNotices(n ?? []), () => {})
  }, [])

  // Theme: follow the OS unless the settings pin one.
  useEffect(() => {
    const t = settings?.theme
    if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t
    else delete document.documentElement.dataset.theme
  }, [settings?.theme])

  // Progress events arrive several per page; fold them five times a second, so a 2,000-page ingest re-renders and
  // re-lays out the window a few times a second instead of every frame (the text and bars need no more).
  useEffect(() => {
    let batch: IngestProgress[] = []
    let timer = 0
    const flush = () => {
      timer = 0
      const b = batch
      batch = []
      setProgress((m) => {
        const next = { ...m }
        for (const p of b) foldProgress(next, p)
        return next
      })
      if (b.some((p) => progressState(p) !== 'running' || p.stage === 'start')) {
        setRefreshKey((k) => k + 1)
        refresh()
      }
    }
    const off = onIngestProgress((p) => {
      batch.push(p)
      if (!timer) timer = window.setTimeout(flush, 200)
    })
    return () => {
      off()
      clearTimeout(timer)
    }
  }, [refresh])

  const add = useCallback(
    (paths: string[]) => {
      const target = collection || 'default'
      libraryApi.addPaths(target, paths).then(
        () => {
          if (!collection) setCollection(target)
          refresh()
        },
        (e: unknown) => setError(String(e instanceof Error ? e.message : e)),
      )
    },
    [collection, refresh],
  )
  useEffect(
    () =>
      onFilesDropped((paths) => {
        setDragging(false)
        setView('library')
        add(paths)
      }),
    [add],
  )
  // Files opened from outside (proofglass FILE…, "Open with Proofglass", a second launch) go where dropped files go.
  useEffect(() => {
    if (!loaded) return
    return onOpenFiles((paths) => {
      setView('library')
      add(paths)
    })
  }, [loaded, add])

  // Keyboard shortcuts: Ctrl+N new chat, Ctrl+K search, Esc stop, Ctrl+1..6 views.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey
      if (mod && e.key.toLowerCase() === 'n') {
        e.preventDefault()
        chat.newChat()
        setView('chat')
        setTimeout(() => questionRef.current?.focus(), 0)
      } else if (mod && e.key.toLowerCase() === 'k') {
        e.preventDefault()
        setView('library')
        setTimeout(() => searchRef.current?.focus(), 0)
      } else if (e.key === 'Escape' && chat.running && !viewer) {
        chat.stop()
      } else if (mod && !e.shiftKey) {
        const v = views.find((x) => x.key === e.key)
        if (v) {
          e.preventDefault()
          setView(v.id)
        }
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [chat, viewer])

  // Stable, so the chat's turns (memoised) do not re-render with every ingest progress frame.
  const showGraph = useCallback((k: string) => {
    setGraphRun(k)
    setView('graph')
  }, [])

  const items = Object.values(progress)
  return (
    <ViewerContext.Provider value={setViewer}>
      <div
        className={dragging ? 'app dragging' : 'app'}
        onDragEnter={(e) => {
          if (e.dataTransfer.types.includes('Files')) setDragging(true)
        }}
        onDragLeave={(e) => {
          if (e.relatedTarget === null) setDragging(false)
        }}
        onDrop={() => setDragging(false)}
      >
        <Shell view={view} onView={setView} status={status} error={error} notices={notices}>
          {view === 'library' && (
            <Library
              collections={collections}
              current={collection}
              onCollection={setCollection}
              onCollectionsChanged={refresh}
              progress={items}
              onAdd={add}
              onRetry={(p, password) => (p.document_id ? libraryApi.retry(p.document_id, password) : libraryApi.addPaths(collection, [p.path ?? p.name])).catch((e: unknown) => setError(String(e)))}
              refreshKey={refreshKey}
              searchRef={searchRef}
              onAskAbout={(d) => {
                setScope([d])
                setView('chat')
              }}
              onDocumentDeleted={(id) =>
                setProgress((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v.document_id !== id)))
              }
            />
          )}
          <div hidden={view !== 'chat'} className="view-fill">
            <Chat
              chat={chat}
              collection={collection}
              scope={scope}
              onScope={setScope}
              ingesting={items}
              defaults={{ mode: settings?.agent.mode ?? 'vrag', think: settings?.agent.think ?? false }}
              inputRef={questionRef}
              onShowGraph={showGraph}
            />
          </div>
          {view === 'graph' && <GraphView runs={chat.runs} runKey={graphRun || chat.activeRun} onRunKey={setGraphRun} />}
          {view === 'settings' && <Settings dataDir={status?.data_dir ?? ''} onSaved={setSettings} />}
          {view === 'compare' && (
            <Compare collection={collection} collectionId={collections.find((c) => c.name === collection)?.id ?? 0} />
          )}
          {view === 'eval' && (
            <>
              <Evaluation collections={collections.map((c) => c.name)} />
              <SearchQuality />
            </>
          )}
        </Shell>
        {dragging && (
          <div className="drop-overlay" aria-hidden="true">
            {t('app.dropFiles', { collection: collection || 'default' })}
          </div>
        )}
        {viewer && <PageViewer target={viewer} onClose={() => setViewer(null)} />}
      </div>
    </ViewerContext.Provider>
  )
}
