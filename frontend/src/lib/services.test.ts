// The generated wrappers call the Wails runtime's bound object with the arguments as given, and reject without it.
import { hasBackend, LibraryService, type DesktopBindings } from './generated/services'
import type { SearchResult } from './types'

afterEach(() => {
  delete window.go
})

describe('generated service wrappers', () => {
  it('reject, and hasBackend is false, without the Wails runtime', async () => {
    expect(hasBackend()).toBe(false)
    await expect(LibraryService.Status()).rejects.toThrow(/Wails runtime/)
  })

  it("call window.go.desktop's bound method with the arguments and give its result", async () => {
    const calls: unknown[][] = []
    const result: SearchResult = { hits: [] }
    const fake: Pick<DesktopBindings['LibraryService'], 'Search'> = {
      Search: (query, collection, k) => {
        calls.push([query, collection, k])
        return Promise.resolve(result)
      },
    }
    window.go = { desktop: { LibraryService: fake } as DesktopBindings }
    expect(hasBackend()).toBe(true)
    await expect(LibraryService.Search('revenue', 'papers', 5)).resolves.toBe(result)
    expect(calls).toEqual([['revenue', 'papers', 5]])
  })
})
