// The typed face of the Go backend: the Wails bindings of backend/desktop's services in wailsjs/, wrapped with plain
// types so features import from one place.
import * as Chat from '../../wailsjs/go/desktop/ChatService'
import * as Library from '../../wailsjs/go/desktop/LibraryService'
import * as Opened from '../../wailsjs/go/desktop/OpenFilesService'
import * as SettingsService from '../../wailsjs/go/desktop/SettingsService'
import { config, desktop } from '../../wailsjs/go/models'
import { OnFileDrop, OnFileDropOff } from '../../wailsjs/runtime/runtime'
import { EventAgent, EventIngest, EventOpenFiles, EventPull, on } from './bus'
import type { AgentEvent } from './events'
import { subscribeOpenFiles } from './openFiles'
import type {
  Collection,
  Conversation,
  Document,
  DocumentFacets,
  FacetGroup,
  IngestProgress,
  Message,
  ModelInfo,
  Notice,
  PageRef,
  ProbeResult,
  Rerank,
  RerankTest,
  Provider,
  ProviderResult,
  PullEvent,
  SearchResult,
  Settings,
  Status,
  AskRequest,
  AskStarted,
} from './types'

export type { AskRequest, AskStarted, Status }

// bound returns the bindings Wails put on window.go, undefined without the Wails runtime (unit tests, a plain browser).
function bound(): unknown {
  const w = window as unknown as { go?: { desktop?: unknown } }
  return w.go?.desktop
}

export const backend = {
  status: (): Promise<Status> => Library.Status(),
  collections: (): Promise<Collection[]> => Library.Collections(),
  createCollection: (name: string): Promise<Collection> => Library.CreateCollection(name),
  documents: (collectionId: number): Promise<Document[]> => Library.Documents(collectionId),
  deleteDocument: (id: number): Promise<void> => Library.DeleteDocument(id),
  pages: (documentId: number): Promise<PageRef[]> => Library.Pages(documentId),
  /** A document's first page (its card's cover), or null while it has none; cheap, unlike pages. */
  cover: (documentId: number): Promise<PageRef | null> => Library.Cover(documentId),
  blob: (hash: string): Promise<string> => Library.Blob(hash),
  pageImage: (unitId: number, width: number): Promise<string> => Library.PageImage(unitId, width),
  search: (q: string, collection: string, k: number): Promise<SearchResult> =>
    Library.Search(q, collection, k) as unknown as Promise<SearchResult>,
  /** search over the documents whose facets pass where ("org=acme,year=2022"; "" = all). */
  searchWhere: (q: string, collection: string, where: string, k: number): Promise<SearchResult> =>
    Library.SearchWhere(q, collection, where, k) as unknown as Promise<SearchResult>,
  /** The kinds, years and organisations of a collection's ready documents, each value with its documents. */
  collectionFacets: (collectionId: number): Promise<FacetGroup[]> =>
    Library.CollectionFacets(collectionId) as unknown as Promise<FacetGroup[]>,
  facets: (documentId: number): Promise<DocumentFacets> =>
    Library.Facets(documentId) as unknown as Promise<DocumentFacets>,
  setFacet: (documentId: number, name: string, value: string): Promise<DocumentFacets> =>
    Library.SetFacet(documentId, name, value) as unknown as Promise<DocumentFacets>,
  resetFacet: (documentId: number, name: string): Promise<DocumentFacets> =>
    Library.ResetFacet(documentId, name) as unknown as Promise<DocumentFacets>,
  pickFiles: (): Promise<string[]> => Library.PickFiles(),
  pickFolder: (): Promise<string> => Library.PickFolder(),
  settings: (): Promise<Settings> => SettingsService.Settings(),
  saveSettings: (s: Settings): Promise<void> => SettingsService.SaveSettings(config.Settings.createFrom(s)),
  setAPIKey: (profile: string, key: string): Promise<void> => SettingsService.SetAPIKey(profile, key),
  // apiKey: a key typed and not saved; the stored key is used by the backend only for the profile's saved URL.
  testProvider: (p: Provider, apiKey = ''): Promise<ProviderResult> => SettingsService.TestProvider(config.Provider.createFrom(p), apiKey),
  listModels: (p: Provider, apiKey = ''): Promise<ModelInfo[]> => SettingsService.ListModels(config.Provider.createFrom(p), apiKey),
  probeModel: (p: Provider, model: string, mode: string): Promise<ProbeResult[]> => SettingsService.ProbeModel(config.Provider.createFrom(p), model, mode),
  pullModel: (p: Provider, name: string): Promise<void> => SettingsService.PullModel(config.Provider.createFrom(p), name),
  // The reranker as edited; the backend runs it through its saved profile (URL and stored key).
  testReranker: (r: Rerank): Promise<RerankTest> => SettingsService.TestReranker(config.Rerank.createFrom(r)),
  conversations: (): Promise<Conversation[]> => Chat.Conversations() as Promise<Conversation[]>,
  messages: (id: number): Promise<Message[]> => Chat.Messages(id) as Promise<Message[]>,
  deleteConversation: (id: number): Promise<void> => Chat.DeleteConversation(id),
  runEvents: (runId: number): Promise<AgentEvent[]> => Chat.RunEvents(runId) as unknown as Promise<AgentEvent[]>,
  chooseSavePath: (defaultName: string): Promise<string> => Chat.ChooseSavePath(defaultName),
  writeTextFile: (path: string, content: string): Promise<void> => Chat.WriteTextFile(path, content),
  addPaths: (collection: string, paths: string[]): Promise<void> => Library.AddPaths(collection, paths),
  retry: (documentId: number, password = ''): Promise<void> => Library.RetryDocument(documentId, password),
  ask: (r: AskRequest): Promise<AskStarted> => Chat.Ask(desktop.AskRequest.createFrom(r)),
  stop: (runId: string): Promise<void> => Chat.Stop(runId),
  addSample: (collection: string): Promise<void> => Library.AddSampleLibrary(collection),
  /** The one-time messages of this start (a Loupe library adopted), each returned once. */
  notices: (): Promise<Notice[]> => Library.Notices(),
}

/** onAgentEvent subscribes to the live agent stream; returns the unsubscribe function. */
export function onAgentEvent(cb: (e: AgentEvent) => void): () => void {
  if (!hasBackend()) return () => {}
  return on(EventAgent, cb)
}

/** onPullProgress subscribes to the progress of Ollama pulls. */
export function onPullProgress(cb: (e: PullEvent) => void): () => void {
  if (!hasBackend()) return () => {}
  return on(EventPull, cb)
}

/** onIngestProgress subscribes to per-document ingest progress. */
export function onIngestProgress(cb: (p: IngestProgress) => void): () => void {
  if (!hasBackend()) return () => {}
  return on(EventIngest, cb)
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
  if (!hasBackend()) return () => {}
  return subscribeOpenFiles(
    () => Opened.TakeOpenFiles(),
    (f) => on(EventOpenFiles, f),
    cb,
  )
}

// hasBackend reports whether the Wails runtime is present (false in unit tests and plain browsers).
export function hasBackend(): boolean {
  return bound() !== undefined
}
