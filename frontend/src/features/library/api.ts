// The library's calls to the Go backend (LibraryService in backend/desktop/library.go, generated wrappers) and its
// ingest:progress events, with lists never null.
import { t } from '../../i18n'
import { EventIngest, on } from '../../lib/bus'
import { hasBackend, LibraryService as Library } from '../../lib/generated/services'
import type { Collection, Document, DocumentFacets, FacetGroup, IngestProgress, Notice, PageRef, PageTable, SearchResult, Status, Summary } from '../../lib/types'

export const libraryApi = {
  status: (): Promise<Status> => Library.Status(),
  collections: async (): Promise<Collection[]> => (await Library.Collections()) ?? [],
  createCollection: (name: string): Promise<Collection> => Library.CreateCollection(name),
  documents: async (collectionId: number): Promise<Document[]> => (await Library.Documents(collectionId)) ?? [],
  deleteDocument: (id: number): Promise<void> => Library.DeleteDocument(id),
  pages: async (documentId: number): Promise<PageRef[]> => (await Library.Pages(documentId)) ?? [],
  /** A document's first page (its card's cover), or null while it has none; cheap, unlike pages. */
  cover: (documentId: number): Promise<PageRef | null> => Library.Cover(documentId),
  blob: (hash: string): Promise<string> => Library.Blob(hash),
  pageImage: (unitId: number, width: number): Promise<string> => Library.PageImage(unitId, width),
  /** The tables found on a page (from 1), top to bottom, with their boxes and cells as tab-separated text. */
  pageTables: async (documentId: number, page: number): Promise<PageTable[]> => (await Library.PageTables(documentId, page)) ?? [],
  /** saveTable asks where to save a page's table (a dialog in the window's language) and writes it; "" when cancelled. */
  saveTable: (documentId: number, page: number, index: number, format: 'csv' | 'xlsx'): Promise<string> =>
    Library.SaveTable(documentId, page, index, format, t('viewer.saveTableDialog')),
  /** A document at a glance: its outline read offline, with the stored summary when one was made. */
  glance: (documentId: number): Promise<Summary> => Library.DocumentGlance(documentId),
  /** Asks the chat model for a document's summary (again, with refresh), its figures checked against their pages. */
  summarize: (documentId: number, refresh: boolean): Promise<Summary> => Library.SummarizeDocument(documentId, refresh),
  search: (q: string, collection: string, k: number): Promise<SearchResult> => Library.Search(q, collection, k),
  /** search over the documents whose facets pass where ("org=acme,year=2022"; "" = all). */
  searchWhere: (q: string, collection: string, where: string, k: number): Promise<SearchResult> =>
    Library.SearchWhere(q, collection, where, k),
  /** The kinds, years and organisations of a collection's ready documents, each value with its documents. */
  collectionFacets: async (collectionId: number): Promise<FacetGroup[]> => (await Library.CollectionFacets(collectionId)) ?? [],
  facets: (documentId: number): Promise<DocumentFacets> => Library.Facets(documentId),
  setFacet: (documentId: number, name: string, value: string): Promise<DocumentFacets> => Library.SetFacet(documentId, name, value),
  resetFacet: (documentId: number, name: string): Promise<DocumentFacets> => Library.ResetFacet(documentId, name),
  /** pickFiles opens the system file dialog (titled in the window's language) for documents to add. */
  pickFiles: async (): Promise<string[]> =>
    (await Library.PickFiles(t('dialog.addFiles'), {
      all: t('dialog.fileTypes.all'),
      pdf: t('dialog.fileTypes.pdf'),
      word: t('dialog.fileTypes.word'),
      excel: t('dialog.fileTypes.excel'),
      powerpoint: t('dialog.fileTypes.powerpoint'),
      opendocument: t('dialog.fileTypes.opendocument'),
      ebook: t('dialog.fileTypes.ebook'),
      xps: t('dialog.fileTypes.xps'),
      comic: t('dialog.fileTypes.comic'),
      web: t('dialog.fileTypes.web'),
      text: t('dialog.fileTypes.text'),
      markdown: t('dialog.fileTypes.markdown'),
      table: t('dialog.fileTypes.table'),
      mail: t('dialog.fileTypes.mail'),
      image: t('dialog.fileTypes.image'),
      video: t('dialog.fileTypes.video'),
      any: t('dialog.fileTypes.any'),
    })) ?? [],
  /** pickFolder opens the system dialog for a folder to add; "" when cancelled. */
  pickFolder: (): Promise<string> => Library.PickFolder(t('dialog.addFolder')),
  addPaths: (collection: string, paths: string[]): Promise<void> => Library.AddPaths(collection, paths),
  retry: (documentId: number, password = ''): Promise<void> => Library.RetryDocument(documentId, password),
  addSample: (collection: string): Promise<void> => Library.AddSampleLibrary(collection),
  /** The one-time messages of this start (a Loupe library adopted), each returned once. */
  notices: async (): Promise<Notice[]> => (await Library.Notices()) ?? [],
}

/** onIngestProgress subscribes to per-document ingest progress; returns the unsubscribe function. */
export function onIngestProgress(cb: (p: IngestProgress) => void): () => void {
  if (!hasBackend()) return () => {}
  return on(EventIngest, cb)
}
