import { subscribeOpenFiles } from './openFiles'

// A stand-in for the Go side's queue and its announcement event.
function queue(initial: string[]) {
  let pending = [...initial]
  const listeners = new Set<() => void>()
  return {
    take: () => {
      const p = pending
      pending = []
      return Promise.resolve(p)
    },
    onAnnounce: (f: () => void) => {
      listeners.add(f)
      return () => listeners.delete(f)
    },
    arrive: (paths: string[]) => {
      pending.push(...paths)
      listeners.forEach((f) => f())
    },
    listeners: () => listeners.size,
  }
}

const flush = () => new Promise((r) => setTimeout(r, 0))

describe('subscribeOpenFiles', () => {
  it('delivers the files of the command line, then each later launch, once each', async () => {
    const q = queue(['/docs/a.pdf'])
    const got: string[][] = []
    const off = subscribeOpenFiles(q.take, q.onAnnounce, (p) => got.push(p))
    await flush()
    q.arrive(['/docs/b.png', '/docs/c.mp4'])
    await flush()
    q.arrive([])
    await flush()
    expect(got).toEqual([['/docs/a.pdf'], ['/docs/b.png', '/docs/c.mp4']])
    off()
    expect(q.listeners()).toBe(0)
  })

  it('keeps files that arrive between subscriptions for the next one', async () => {
    const q = queue([])
    const first: string[][] = []
    subscribeOpenFiles(q.take, q.onAnnounce, (p) => first.push(p))()
    q.arrive(['/docs/late.pdf'])
    const second: string[][] = []
    subscribeOpenFiles(q.take, q.onAnnounce, (p) => second.push(p))
    await flush()
    expect(first).toEqual([])
    expect(second).toEqual([['/docs/late.pdf']])
  })

  it('ignores a backend that fails to answer', async () => {
    const got: string[][] = []
    subscribeOpenFiles(() => Promise.reject(new Error('gone')), () => () => {}, (p) => got.push(p))
    await flush()
    expect(got).toEqual([])
  })
})
