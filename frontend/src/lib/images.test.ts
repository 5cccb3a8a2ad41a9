import { acquire, Dropped, queued } from './images'

// A fetcher that resolves when the test says so, counting its calls.
function gate() {
  let calls = 0
  let open: (v: string) => void = () => {}
  const p = new Promise<string>((r) => (open = r))
  return {
    fetch: () => {
      calls++
      return p
    },
    open: (v: string) => open(v),
    calls: () => calls,
  }
}

describe('image loading', () => {
  it('drops a queued load whose callers all went away, and runs the next one instead', async () => {
    const busy = Array.from({ length: 4 }, () => gate())
    const running = busy.map((g, i) => acquire(`busy:${i}`, g.fetch))
    const gone = gate()
    const wanted = gate()
    const a = acquire('gone', gone.fetch)
    const b = acquire('wanted', wanted.fetch)
    expect(queued()).toBe(2)
    a.release()
    await expect(a.promise).rejects.toBeInstanceOf(Dropped)
    expect(queued()).toBe(1)
    busy[0].open('data:busy0')
    await running[0].promise
    b.promise.catch(() => {})
    await Promise.resolve()
    expect(gone.calls()).toBe(0)
    expect(wanted.calls()).toBe(1)
    wanted.open('data:wanted')
    expect(await b.promise).toBe('data:wanted')
    // Served from the cache afterwards, with no new fetch.
    expect(await acquire('wanted', wanted.fetch).promise).toBe('data:wanted')
    expect(wanted.calls()).toBe(1)
    busy.slice(1).forEach((g, i) => g.open(`data:busy${i + 1}`))
    await Promise.all(running.map((r) => r.promise))
  })

  it('keeps a queued load while another caller still waits for it', async () => {
    const busy = Array.from({ length: 4 }, () => gate())
    const running = busy.map((g, i) => acquire(`busy2:${i}`, g.fetch))
    const shared = gate()
    const first = acquire('shared', shared.fetch)
    const second = acquire('shared', shared.fetch)
    first.release()
    expect(queued()).toBe(1)
    busy.forEach((g) => g.open('x'))
    await Promise.all(running.map((r) => r.promise))
    shared.open('data:shared')
    expect(await second.promise).toBe('data:shared')
    expect(shared.calls()).toBe(1)
  })
})
