import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import type { ArchiveAPI } from './archive'
import { ArchiveTransfer } from './ArchiveTransfer'

function fakeAPI(over: Partial<ArchiveAPI> = {}) {
  const calls: string[] = []
  const api: ArchiveAPI = {
    exportCollection: async (c) => {
      calls.push('export ' + c)
      return { path: '/home/me/papers.zip', report: { collections: [], counts: { documents: 3 }, blobs: 4, blob_bytes: 9, bytes: 99, seconds: 1 } }
    },
    importArchive: async () => {
      calls.push('import')
      return { format: 'proofglass-library', version: 1, app_version: 'dev', collections: [], added: { documents: 2 }, existing: { documents: 1 }, blobs: 2, blobs_had: 0, seconds: 1 }
    },
    ...over,
  }
  return { api, calls }
}

test('exports the current collection and says where', async () => {
  const { api, calls } = fakeAPI()
  render(<ArchiveTransfer collection="papers" api={api} />)
  fireEvent.click(screen.getByRole('button', { name: /papers/ }))
  await waitFor(() => expect(screen.getByRole('status').textContent).toContain('/home/me/papers.zip'))
  expect(calls).toEqual(['export papers'])
  expect(screen.getByRole('status').textContent).toContain('3')
})

test('imports an archive, says what it added, and refreshes the collections', async () => {
  const { api } = fakeAPI()
  let changed = 0
  render(<ArchiveTransfer collection="papers" api={api} onChanged={() => changed++} />)
  fireEvent.click(screen.getByRole('button', { name: /import/i }))
  await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/2.*1/))
  expect(changed).toBe(1)
})

test('a cancelled dialog says nothing; a refused archive shows the reason', async () => {
  const { api } = fakeAPI({
    exportCollection: async () => null,
    importArchive: async () => {
      throw new Error('import /tmp/x.zip: not a valid Proofglass library archive: no manifest.json')
    },
  })
  render(<ArchiveTransfer collection="papers" api={api} />)
  fireEvent.click(screen.getByRole('button', { name: /papers/ }))
  await waitFor(() => expect((screen.getByRole('button', { name: /papers/ }) as HTMLButtonElement).disabled).toBe(false))
  expect(screen.queryByRole('status')).toBeNull()
  fireEvent.click(screen.getByRole('button', { name: /import/i }))
  await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('no manifest.json'))
})
