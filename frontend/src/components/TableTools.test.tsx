import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { libraryApi } from '../features/library/api'
import type { Box4 } from '../lib/events'
import type { PageTable } from '../lib/types'
import { TableTools } from './TableTools'

const stock: PageTable = { index: 1, caption: 'Stock', rows: 2, columns: 2, box: [0.05, 0.05, 0.4, 0.15], tsv: 'Item\tCount\nbolts\t250\n' }
const ledger: PageTable = { index: 2, caption: 'Ledger', rows: 40, columns: 4, box: [0.05, 0.3, 0.6, 0.95], tsv: 'Month\tUnits\n' }

describe('TableTools', () => {
  afterEach(() => vi.restoreAllMocks())

  it('chooses the table under the cited region, outlines it, copies it as cells and saves it', async () => {
    vi.spyOn(libraryApi, 'pageTables').mockResolvedValue([stock, ledger])
    const save = vi.spyOn(libraryApi, 'saveTable').mockResolvedValue('/home/u/ledger.xlsx')
    const copied: string[] = []
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (s: string) => void copied.push(s) }, configurable: true })
    const boxes: (Box4 | null)[] = []
    render(<TableTools documentId={7} page={3} regions={[[0.1, 0.5, 0.3, 0.6]]} onSelect={(b) => boxes.push(b)} />)
    const select = await screen.findByRole('combobox', { name: 'Table on this page' })
    expect((select as HTMLSelectElement).value).toBe('1') // the ledger holds the cited region
    await waitFor(() => expect(boxes.at(-1)).toEqual(ledger.box))

    fireEvent.click(screen.getByRole('button', { name: 'Copy as table' }))
    await screen.findByText('Copied 40 rows × 4 columns')
    expect(copied).toEqual([ledger.tsv])

    fireEvent.click(screen.getByRole('button', { name: 'Save as XLSX' }))
    await screen.findByText('Saved to /home/u/ledger.xlsx')
    expect(save).toHaveBeenCalledWith(7, 3, 2, 'xlsx')

    fireEvent.change(select, { target: { value: '0' } })
    await waitFor(() => expect(boxes.at(-1)).toEqual(stock.box))
    save.mockResolvedValue('') // a cancelled dialog says nothing
    fireEvent.click(screen.getByRole('button', { name: 'Save as CSV' }))
    await waitFor(() => expect(save).toHaveBeenLastCalledWith(7, 3, 1, 'csv'))
    expect(screen.queryByText(/Saved to/)).toBeNull()
  })

  it('shows nothing on a page without tables', async () => {
    const list = vi.spyOn(libraryApi, 'pageTables').mockResolvedValue([])
    const boxes: (Box4 | null)[] = []
    await act(async () => {
      render(<TableTools documentId={7} page={1} regions={[]} onSelect={(b) => boxes.push(b)} />)
    })
    expect(list).toHaveBeenCalledWith(7, 1)
    expect(screen.queryByTestId('table-tools')).toBeNull()
    expect(boxes.every((b) => b === null)).toBe(true)
  })
})
