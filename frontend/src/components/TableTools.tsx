import { useEffect, useState } from 'react'
import { useTranslation } from '../i18n'
import { libraryApi } from '../features/library/api'
import type { Box4 } from '../lib/events'
import type { PageTable } from '../lib/types'

/** The Wails runtime's clipboard, present in the desktop window (the browser's needs a secure context). */
interface ClipboardRuntime {
  runtime?: { ClipboardSetText?: (text: string) => Promise<boolean> }
}

async function copyText(text: string): Promise<void> {
  const rt = (window as unknown as ClipboardRuntime).runtime
  if (rt?.ClipboardSetText && (await rt.ClipboardSetText(text))) return
  await navigator.clipboard.writeText(text)
}

/** overlap is the area two boxes (0..1 of the page) share. */
function overlap(a: Box4, b: Box4): number {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0])
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1])
  return w > 0 && h > 0 ? w * h : 0
}

/**
 * TableTools offers the tables found on a page: choose one (the one under the cited region first), see it outlined
 * (onSelect), copy it as a table (tab-separated, which spreadsheets paste as cells) or save it as CSV or XLSX.
 */
export function TableTools({
  documentId,
  page,
  regions,
  onSelect,
}: {
  documentId: number
  page: number
  regions: Box4[]
  onSelect: (box: Box4 | null) => void
}) {
  const { t } = useTranslation()
  const [tables, setTables] = useState<PageTable[]>([])
  const [chosen, setChosen] = useState(0)
  const [note, setNote] = useState('')

  useEffect(() => {
    let live = true
    setTables([])
    setNote('')
    libraryApi.pageTables(documentId, page).then(
      (ts) => {
        if (!live) return
        setTables(ts)
        let best = 0
        let most = 0
        ts.forEach((tb, i) => {
          const o = regions.reduce((s, r) => s + overlap(tb.box, r), 0)
          if (o > most) [best, most] = [i, o]
        })
        setChosen(best)
      },
      () => live && setTables([]),
    )
    return () => {
      live = false
    }
    // regions only choose the first table shown; a new array of the same regions must not refetch
  }, [documentId, page])

  const table = tables[chosen]
  useEffect(() => {
    onSelect(table ? table.box : null)
  }, [table, onSelect])
  if (!table) return null

  const save = async (format: 'csv' | 'xlsx') => {
    try {
      const path = await libraryApi.saveTable(documentId, page, table.index, format)
      setNote(path ? t('viewer.tableSaved', { path }) : '')
    } catch (e) {
      setNote(String(e))
    }
  }
  const copy = async () => {
    try {
      await copyText(table.tsv)
      setNote(t('viewer.tableCopied', { rows: table.rows, columns: table.columns }))
    } catch (e) {
      setNote(t('viewer.copyFailed', { error: String(e) }))
    }
  }
  const label = (tb: PageTable) => tb.caption || t('viewer.tableN', { n: tb.index })
  return (
    <div className="table-tools" data-testid="table-tools">
      {tables.length > 1 ? (
        <select aria-label={t('viewer.chooseTable')} value={chosen} onChange={(e) => setChosen(Number(e.target.value))}>
          {tables.map((tb, i) => (
            <option key={tb.index} value={i}>
              {label(tb)} ({tb.rows}×{tb.columns})
            </option>
          ))}
        </select>
      ) : (
        <span className="muted">
          {label(table)} ({table.rows}×{table.columns})
        </span>
      )}
      <button onClick={copy}>{t('viewer.copyTable')}</button>
      <button onClick={() => save('csv')}>{t('viewer.saveCSV')}</button>
      <button onClick={() => save('xlsx')}>{t('viewer.saveXLSX')}</button>
      {note && (
        <span className="muted ellipsis" role="status">
          {note}
        </span>
      )}
    </div>
  )
}
