import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import type { WatchAPI, WatchStatus } from './watch'
import { WatchedFolders } from './WatchedFolders'

const folder = (over: Partial<WatchStatus>): WatchStatus => ({
  id: 1,
  collection_id: 1,
  collection: 'papers',
  path: '/home/me/Papers',
  created_at: '2026-12-01T10:00:00Z',
  scanned_at: '2026-12-01T10:01:00Z',
  files: 4,
  documents: 3,
  state: 'watching',
  pending: 0,
  seq: 1,
  ...over,
})

function fakeAPI(initial: WatchStatus[]) {
  const calls: string[] = []
  let push: (s: WatchStatus) => void = () => {}
  let list = initial
  const api: WatchAPI = {
    folders: async () => list,
    add: async (c) => {
      calls.push('add ' + c)
      list = [...list, folder({ id: 9, collection: c, path: '/home/me/New' })]
      return { id: 9 }
    },
    remove: async (id, keep) => {
      calls.push(`remove ${id} ${keep}`)
      list = list.filter((f) => f.id !== id)
      return 3
    },
    onStatus: (cb) => {
      push = cb
      return () => {}
    },
  }
  return { api, calls, push: (s: WatchStatus) => push(s) }
}

describe('WatchedFolders', () => {
  it("lists the collection's folders with live status and last error", async () => {
    const f = fakeAPI([folder({}), folder({ id: 2, collection: 'other', path: '/elsewhere' })])
    render(<WatchedFolders collection="papers" api={f.api} />)
    expect(await screen.findByText('/home/me/Papers')).toBeTruthy()
    expect(screen.queryByText('/elsewhere')).toBeNull()
    expect(screen.getByTestId('watch-state-1').textContent).toBe('watching')
    act(() => f.push(folder({ state: 'scanning', pending: 5, seq: 3 })))
    expect(screen.getByTestId('watch-state-1').textContent).toBe('scanning · 5 pending')
    // An older status delivered late (the dev websocket reorders) does not overwrite a newer one.
    act(() => f.push(folder({ state: 'watching', pending: 9, seq: 2 })))
    expect(screen.getByTestId('watch-state-1').textContent).toBe('scanning · 5 pending')
    act(() => f.push(folder({ state: 'missing', last_error: '/home/me/Papers: folder not found', seq: 4 })))
    expect(screen.getByRole('alert').textContent).toContain('folder not found')
  })

  it('adds a folder through the dialog and removes one, keeping documents when asked', async () => {
    const f = fakeAPI([folder({})])
    let changed = 0
    render(<WatchedFolders collection="papers" api={f.api} onChanged={() => changed++} />)
    await screen.findByText('/home/me/Papers')
    fireEvent.click(screen.getByRole('button', { name: 'Watch a folder…' }))
    expect(await screen.findByText('/home/me/New')).toBeTruthy()
    fireEvent.click(screen.getByRole('checkbox'))
    fireEvent.click(screen.getByRole('button', { name: 'Stop watching /home/me/Papers' }))
    await waitFor(() => expect(screen.queryByText('/home/me/Papers')).toBeNull())
    expect(f.calls).toEqual(['add papers', 'remove 1 true'])
    expect(changed).toBe(2)
  })

  it('shows the error of a failed add', async () => {
    const f = fakeAPI([])
    f.api.add = async () => {
      throw new Error('/tmp/x is already watched for collection papers')
    }
    render(<WatchedFolders collection="papers" api={f.api} />)
    fireEvent.click(screen.getByRole('button', { name: 'Watch a folder…' }))
    expect((await screen.findByRole('alert')).textContent).toContain('already watched')
  })
})
