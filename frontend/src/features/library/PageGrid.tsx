import { useVirtualizer } from '@tanstack/react-virtual'
import { memo, useEffect, useRef, useState } from 'react'
import { Thumb } from '../../components/Thumb'
import { useTranslation } from '../../i18n'
import type { PageRef } from '../../lib/types'

const CELL_W = 148
const CELL_H = 210

/** PageGrid is a virtualised grid of page thumbnails: only the rows on screen exist in the DOM. */
export const PageGrid = memo(function PageGrid({
  pages,
  onOpen,
  label,
}: {
  pages: PageRef[]
  onOpen: (p: PageRef) => void
  label: string
}) {
  const { t } = useTranslation()
  const parent = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(800)
  useEffect(() => {
    const el = parent.current
    if (!el) return
    const ro = new ResizeObserver(() => setWidth(el.clientWidth))
    ro.observe(el)
    setWidth(el.clientWidth)
    return () => ro.disconnect()
  }, [])
  const cols = Math.max(1, Math.floor((width - 8) / CELL_W))
  const rows = Math.ceil(pages.length / cols)
  const v = useVirtualizer({ count: rows, getScrollElement: () => parent.current, estimateSize: () => CELL_H, overscan: 3 })
  return (
    <div className="page-grid" ref={parent} data-testid="page-grid" aria-label={label} role="list">
      <div style={{ height: v.getTotalSize(), position: 'relative' }}>
        {v.getVirtualItems().map((row) => (
          <div key={row.key} className="page-row" style={{ transform: `translateY(${row.start}px)`, height: CELL_H }}>
            {pages.slice(row.index * cols, row.index * cols + cols).map((p) => (
              <button key={p.id} className="page-cell" role="listitem" onClick={() => onOpen(p)} data-testid="page-cell">
                <Thumb blob={p.thumb} unitId={p.id} width={256} alt={t('library.page', { n: p.ordinal })} />
                <span className="muted">{t(p.kind === 'clip' ? 'library.clip' : 'library.page', { n: p.ordinal })}</span>
              </button>
            ))}
          </div>
        ))}
      </div>
    </div>
  )
})
