// The typed face of the Go backend: the Wails bindings in wailsjs/, wrapped with plain types so features import
// from one place. Methods that a build may not have yet are called through optional(), which reports their absence.
import * as App from '../../wailsjs/go/main/App'
import * as Opened from '../../wailsjs/go/main/OpenFiles'
import { config, main } from '../../wailsjs/go/models'
import { EventsOn, OnFileDrop, OnFileDropOff } from '../../wailsjs/runtime/runtime'
import type { AgentEvent } from './events'
import { subscribeOpenFiles } from './openFiles'
import type {
  Collection,
  Conversation,
  Document,
  IngestProgress,
  Message,
  ModelInfo,
  PageRef,
  ProbeResult,
  Provider,
  ProviderResult,
  PullEvent,
  SearchResult,
  Settings,
} from './types'

export interface Status {
  version: string
  data_dir: string
  schema_version: number
  collections: number
  documents: number
  features?: string[]
}

type Bound = Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>

function bound(): Bound | undefined {
  const w = window as unknown as { go?: { main?: { App?: Bound } } }
  return w.go?.main?.App
}

/** has reports whether this build's backend binds the named method. */
export function has(method: string): boolean {
  return typeof bound()?.[method] === 'function'
}

export class MissingFeature extends Error {}

function optional<T>(method: string, ...args: unknown[]): Promise<T> {
  const fn = bound()?.[method]
  if (!fn) return Promise.reject(new MissingFeature(`This build of Proofglass has no ${method} yet.`))
  return fn(...args) as Promise<T>
}

export interface AskRequest {
  conversation_id: number
  question: string
  mode: string
  think?: boolean
  collection: string
  /** The scope: the agent searches these documents only; empty or absent means all. */
  documents?: number[]
  provider?: string
  model?: string
}

export interface AskStarted {
  run_id: string
  conversation_id: number
}

export const backend = {
  status: (): Promise<Status> => App.Status(),
  collections: (): Promise<Collection[]> => App.Collections(),
  createCollection: (name: string): Promise<Collection> => App.CreateCollection(name),
  documents: (collectionId: number): Promise<Document[]> => App.Documents(collectionId),
  deleteDocument: (id: number): Promise<void> => App.DeleteDocument(id),
  pages: (documentId: number): Promise<PageRef[]> => App.Pages(documentId),
  /** A document's first page (its card's cover), or null while it has none; cheap, unlike pages. */
  cover: (documentId: number): Promise<PageRef | null> => App.Cover(documentId),
  blob: (hash: string): Promise<string> => App.Blob(hash),
  pageImage: (unitId: number, width: number): Promise<string> => App.PageImage(unitId, width),
  search: (q: string, collection: string, k: number): Promise<SearchResult> =>
    App.Search(q, collection, k) as unknown as Promise<SearchResult>,
  pickFiles: (): Promise<string[]> => App.PickFiles(),
  pickFolder: (): Promise<string> => App.PickFolder(),
  settings: (): Promise<Settings> => App.Settings(),
  saveSettings: (s: Settings): Promise<void> => App.SaveSettings(config.Settings.createFrom(s)),
  setAPIKey: (profile: string, key: string): Promise<void> => App.SetAPIKey(profile, key),
  // apiKey: a key typed and not saved; the stored key is used by the backend only for the profile's saved URL.
  testProvider: (p: Provider, apiKey = ''): Promise<ProviderResult> => App.TestProvider(config.Provider.createFrom(p), apiKey),
  listModels: (p: Provider, apiKey = ''): Promise<ModelInfo[]> => App.ListModels(config.Provider.createFrom(p), apiKey),
  probeModel: (p: Provider, model: string, mode: string): Promise<ProbeResult[]> => App.ProbeModel(config.Provider.createFrom(p), model, mode),
  pullModel: (p: Provider, name: string): Promise<void> => App.PullModel(config.Provider.createFrom(p), name),
  conversations: (): Promise<Conversation[]> => App.Conversations() as Promise<Conversation[]>,
  messages: (id: number): Promise<Message[]> => App.Messages(id) as Promise<Message[]>,
  deleteConversation: (id: number): Promise<void> => App.DeleteConversation(id),
  runEvents: (runId: number): Promise<AgentEvent[]> => App.RunEvents(runId) as unknown as Promise<AgentEvent[]>,
  chooseSavePath: (defaultName: string): Promise<string> => App.ChooseSavePath(defaultName),
  writeTextFile: (path: string, content: string): Promise<void> => App.WriteTextFile(path, content),
  addPaths: (collection: string, paths: string[]): Promise<void> => App.AddPaths(collection, paths),
  retry: (documentId: number, password = ''): Promise<void> => App.RetryDocument(documentId, password),
  ask: (r: AskRequest): Promise<AskStarted> => App.Ask(main.AskRequest.createFrom(r)),
  stop: (runId: string): Promise<void> => App.Stop(runId),
  // Parts that land in later builds.
  addSample: (collection: string): Promise<void> => optional('AddSampleLibrary', collection),
}

/** onAgentEvent subscribes to the live agent stream; returns the unsubscribe function. */
export function onAgentEvent(cb: (e: AgentEvent) => void): () => void {
  if (!hasBackend()) return () => {}
  return EventsOn('agent:event', (e: AgentEvent) => cb(e))
}

/** onPullProgress subscribes to the progress of Ollama pulls. */
export function onPullProgress(cb: (e: PullEvent) => void): () => void {
  if (!hasBackend()) return () => {}
  return EventsOn('models:pull', (e: PullEvent) => cb(e))
}

/** onIngestProgress subscribes to per-document ingest progress. */
export function onIngestProgress(cb: (p: IngestProgress) => void): () => void {
  if (!hasBackend()) return () => {}
  return EventsOn('ingest:progress', (p: IngestProgress) => cb(p))
}

/** onFilesDropped calls cb with the paths of files dropped anywhere on the window (desktop only). */
export function onFilesDropped(cb: (paths: string[]) => void): () => void {
  const w = window as unknown as { runtime?: { OnFileDrop?: unknown } }
  if (!w.runtime?.OnFileDrop) return () => {}
  OnFileDrop((_x: number, _y: number, paths: string[]) => cb(paths), false)
  return () => OnFileDropOff()
}

/** onOpenFiles calls cb with the files Proofglass was asked to open from outside (command line, "Open with Proofglass", a
 * later launch): those waiting now, then each batch as it arrives. */
export function onOpenFiles(cb: (paths: string[]) => void): () => void {
  const w = window as unknown as { go?: { main?: { OpenFiles?: unknown } } }
  if (!w.go?.main?.OpenFiles) return () => {}
  return subscribeOpenFiles(
    () => Opened.TakeOpenFiles(),
    (f) => EventsOn('open:files', f),
    cb,
  )
}

// hasBackend reports whether the Wails runtime is present (false in unit tests and plain browsers).
export function hasBackend(): boolean {
  return bound() !== undefined
}
