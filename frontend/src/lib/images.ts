// Loads page renders and blobs as data URLs through the backend, with a bounded cache and a small concurrency limit
// so that scrolling a 10,000-page grid never floods the bridge. A request whose every caller went away (its thumbnail
// scrolled off) before it started is dropped, so the cells on screen never wait behind the ones scrolled past.
import { useEffect, useState } from 'react'
import { hasBackend, LibraryService } from './generated/services'

const MAX_ENTRIES = 600
const MAX_INFLIGHT = 4
const cache = new Map<string, string>()

interface Request {
  promise: Promise<string>
  callers: number
  /** Set while waiting for a slot; calling it drops the request. */
  drop?: () => void
}

const requests = new Map<string, Request>()
const queue: (() => void)[] = []
let inflight = 0

/** Dropped is the reason a queued request ends with when nobody waits for it any more. */
export class Dropped extends Error {}

function remember(key: string, url: string) {
  cache.delete(key)
  cache.set(key, url)
  if (cache.size > MAX_ENTRIES) {
    const oldest = cache.keys().next().value
    if (oldest !== undefined) cache.delete(oldest)
  }
}

function start(key: string, fetcher: () => Promise<string>): Request {
  const r: Request = { promise: Promise.resolve(''), callers: 0 }
  r.promise = new Promise<string>((resolve, reject) => {
    const run = () => {
      r.drop = undefined
      inflight++
      fetcher()
        .then(
          (url) => {
            remember(key, url)
            resolve(url)
          },
          reject,
        )
        .finally(() => {
          inflight--
          requests.delete(key)
          queue.shift()?.()
        })
    }
    if (inflight < MAX_INFLIGHT) {
      run()
      return
    }
    queue.push(run)
    r.drop = () => {
      const i = queue.indexOf(run)
      if (i >= 0) queue.splice(i, 1)
      requests.delete(key)
      reject(new Dropped(key))
    }
  })
  return r
}

/** acquire joins or starts the load of key; release says the caller no longer needs it. */
export function acquire(key: string, fetcher: () => Promise<string>): { promise: Promise<string>; release: () => void } {
  const hit = cache.get(key)
  if (hit) return { promise: Promise.resolve(hit), release: () => {} }
  let r = requests.get(key)
  if (!r) {
    r = start(key, fetcher)
    requests.set(key, r)
  }
  const req = r
  req.callers++
  let released = false
  return {
    promise: req.promise,
    release: () => {
      if (released) return
      released = true
      req.callers--
      if (req.callers === 0) req.drop?.()
    },
  }
}

/** loadImage loads key once (cached); the load is never dropped. */
export function loadImage(key: string, fetcher: () => Promise<string>): Promise<string> {
  return acquire(key, fetcher).promise
}

/** queued reports how many loads wait for a slot (for tests). */
export function queued(): number {
  return queue.length
}

/** useImage returns the data URL for key once loaded ('' before, or on failure; error then says why). */
export function useImage(key: string | undefined, fetcher: () => Promise<string>): { url: string; error: string } {
  const [state, setState] = useState<{ key?: string; url: string; error: string }>(() => ({
    key,
    url: key ? (cache.get(key) ?? '') : '',
    error: '',
  }))
  useEffect(() => {
    if (!key || !hasBackend()) return
    const hit = cache.get(key)
    if (hit) {
      setState({ key, url: hit, error: '' })
      return
    }
    let live = true
    const h = acquire(key, fetcher)
    h.promise.then(
      (url) => live && setState({ key, url, error: '' }),
      (e: unknown) => live && !(e instanceof Dropped) && setState({ key, url: '', error: String(e) }),
    )
    return () => {
      live = false
      h.release()
    }
    // fetcher is derived from key
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
  return state.key === key ? state : { url: key ? (cache.get(key) ?? '') : '', error: '' }
}

export function useBlob(hash: string | undefined) {
  return useImage(hash ? 'blob:' + hash : undefined, () => LibraryService.Blob(hash ?? ''))
}

/** usePage renders a unit at a width rounded up to a step, so nearby zoom levels share renders. */
export function usePage(unitId: number | undefined, width: number) {
  const w = Math.min(4096, Math.max(128, Math.ceil(width / 256) * 256))
  return useImage(unitId ? `page:${unitId}:${w}` : undefined, () => LibraryService.PageImage(unitId ?? 0, w))
}
