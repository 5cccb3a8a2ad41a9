// Loads page renders and blobs as data URLs through the backend, with a bounded cache and a small concurrency limit
// so that scrolling a 10,000-page grid never floods the bridge.
import { useEffect, useState } from 'react'
import { backend, hasBackend } from './backend'

const MAX_ENTRIES = 600
const MAX_INFLIGHT = 4
const cache = new Map<string, string>()
const pending = new Map<string, Promise<string>>()
const queue: (() => void)[] = []
let inflight = 0

function remember(key: string, url: string) {
  cache.delete(key)
  cache.set(key, url)
  if (cache.size > MAX_ENTRIES) {
    const oldest = cache.keys().next().value
    if (oldest !== undefined) cache.delete(oldest)
  }
}

function schedule<T>(fn: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const run = () => {
      inflight++
      fn()
        .then(resolve, reject)
        .finally(() => {
          inflight--
          queue.shift()?.()
        })
    }
    if (inflight < MAX_INFLIGHT) run()
    else queue.push(run)
  })
}

export function loadImage(key: string, fetcher: () => Promise<string>): Promise<string> {
  const hit = cache.get(key)
  if (hit) return Promise.resolve(hit)
  const p = pending.get(key)
  if (p) return p
  const q = schedule(fetcher).then(
    (url) => {
      pending.delete(key)
      remember(key, url)
      return url
    },
    (e: unknown) => {
      pending.delete(key)
      throw e
    },
  )
  pending.set(key, q)
  return q
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
    loadImage(key, fetcher).then(
      (url) => live && setState({ key, url, error: '' }),
      (e: unknown) => live && setState({ key, url: '', error: String(e) }),
    )
    return () => {
      live = false
    }
    // fetcher is derived from key
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
  return state.key === key ? state : { url: key ? (cache.get(key) ?? '') : '', error: '' }
}

export function useBlob(hash: string | undefined) {
  return useImage(hash ? 'blob:' + hash : undefined, () => backend.blob(hash ?? ''))
}

/** usePage renders a unit at a width rounded up to a step, so nearby zoom levels share renders. */
export function usePage(unitId: number | undefined, width: number) {
  const w = Math.min(4096, Math.max(128, Math.ceil(width / 256) * 256))
  return useImage(unitId ? `page:${unitId}:${w}` : undefined, () => backend.pageImage(unitId ?? 0, w))
}
