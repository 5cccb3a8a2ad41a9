import { useCallback, useEffect, useRef, useState } from 'react'
import { useTranslation } from '../i18n'
import { libraryApi } from '../features/library/api'
import { zoomToRegion } from '../lib/geometry'
import { usePage } from '../lib/images'
import type { PageRef } from '../lib/types'
import { Overlay } from './Overlay'
import { TableTools } from './TableTools'
import type { Box4 } from '../lib/events'
import type { ViewerTarget } from './viewerContext'

const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4]

/** PageViewer is a modal page viewer: zoom, pan by dragging, page navigation, highlighted regions. */
export function PageViewer({ target, onClose }: { target: ViewerTarget; onClose: () => void }) {
  const { t } = useTranslation()
  const [pages, setPages] = useState<PageRef[]>([])
  const [unitId, setUnitId] = useState(target.unitId)
  const [zoom, setZoom] = useState(1)
  const scroller = useRef<HTMLDivElement>(null)
  const dialog = useRef<HTMLDivElement>(null)
  const [vw, setVw] = useState(800)
  const [vh, setVh] = useState(600)
  const [tableBox, setTableBox] = useState<Box4 | null>(null)

  useEffect(() => {
    libraryApi.pages(target.documentId).then(setPages, () => setPages([]))
  }, [target.documentId])
  useEffect(() => setUnitId(target.unitId), [target.unitId])
  useEffect(() => {
    const el = scroller.current
    if (!el) return
    const ro = new ResizeObserver(() => {
      setVw(el.clientWidth)
      setVh(el.clientHeight)
    })
    ro.observe(el)
    dialog.current?.focus()
    return () => ro.disconnect()
  }, [])

  const index = pages.findIndex((p) => p.id === unitId)
  const page = index >= 0 ? pages[index] : undefined
  const regions = unitId === target.unitId ? (target.regions ?? []) : []
  const aspect = page && page.width > 0 ? page.height / page.width : 1.414
  const fitW = Math.max(200, Math.min(vw - 48, (vh - 48) / aspect))
  const dispW = fitW * zoom
  const img = usePage(unitId, dispW * (window.devicePixelRatio || 1))

  // Open zoomed on the cited region.
  const focused = useRef(false)
  useEffect(() => {
    if (focused.current || !page || regions.length === 0 || !scroller.current) return
    focused.current = true
    const z = zoomToRegion(regions[0], fitW, fitW * aspect, vw, vh)
    setZoom(z.zoom)
    requestAnimationFrame(() => {
      scroller.current?.scrollTo({ left: z.scrollLeft, top: z.scrollTop })
    })
  }, [page, regions, fitW, aspect, vw, vh])

  const go = useCallback(
    (d: number) => {
      if (pages.length === 0) return
      const i = Math.max(0, Math.min(pages.length - 1, (index < 0 ? 0 : index) + d))
      setUnitId(pages[i].id)
    },
    [pages, index],
  )
  const zoomBy = useCallback((d: number) => {
    setZoom((z) => {
      const i = ZOOMS.findIndex((x) => x >= z - 1e-6)
      const j = Math.max(0, Math.min(ZOOMS.length - 1, (i < 0 ? ZOOMS.length - 1 : i) + d))
      return ZOOMS[j]
    })
  }, [])

  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') onClose()
    else if (e.key === 'ArrowRight' || e.key === 'PageDown') go(1)
    else if (e.key === 'ArrowLeft' || e.key === 'PageUp') go(-1)
    else if (e.key === '+' || e.key === '=') zoomBy(1)
    else if (e.key === '-') zoomBy(-1)
    else if (e.key === '0') setZoom(1)
    else return
    e.preventDefault()
  }

  // Drag to pan.
  const drag = useRef<{ x: number; y: number; l: number; t: number } | null>(null)
  const onPointerDown = (e: React.PointerEvent) => {
    const el = scroller.current
    if (!el) return
    drag.current = { x: e.clientX, y: e.clientY, l: el.scrollLeft, t: el.scrollTop }
    el.setPointerCapture(e.pointerId)
  }
  const onPointerMove = (e: React.PointerEvent) => {
    const el = scroller.current
    if (!el || !drag.current) return
    el.scrollLeft = drag.current.l - (e.clientX - drag.current.x)
    el.scrollTop = drag.current.t - (e.clientY - drag.current.y)
  }
  const onWheel = (e: React.WheelEvent) => {
    if (!e.ctrlKey) return
    e.preventDefault()
    zoomBy(e.deltaY < 0 ? 1 : -1)
  }

  const title = target.title ?? t('viewer.page')
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div
        className="viewer"
        role="dialog"
        aria-modal="true"
        aria-label={t('viewer.dialog')}
        data-testid="viewer"
        tabIndex={-1}
        ref={dialog}
        onKeyDown={onKey}
        onClick={(e) => e.stopPropagation()}
      >
        <header className="viewer-bar">
          <strong className="ellipsis">{title}</strong>
          <span className="muted" data-testid="viewer-page">
            {page ? t('viewer.pageOf', { n: page.ordinal, total: pages.length }) : t('common.loading')}
          </span>
          <span className="spacer" />
          <button onClick={() => go(-1)} disabled={index <= 0} aria-label={t('viewer.previous')}>
            ‹
          </button>
          <button onClick={() => go(1)} disabled={index < 0 || index >= pages.length - 1} aria-label={t('viewer.next')}>
            ›
          </button>
          <button onClick={() => zoomBy(-1)} aria-label={t('viewer.zoomOut')}>
            −
          </button>
          <span className="zoom" data-testid="zoom">
            {Math.round(zoom * 100)}%
          </span>
          <button onClick={() => zoomBy(1)} aria-label={t('viewer.zoomIn')}>
            +
          </button>
          <button onClick={() => setZoom(1)}>{t('viewer.fit')}</button>
          <button onClick={onClose} aria-label={t('viewer.close')}>
            ✕
          </button>
        </header>
        {page && (
          <TableTools documentId={target.documentId} page={page.ordinal} regions={regions} onSelect={setTableBox} />
        )}
        <div
          className="viewer-scroll"
          ref={scroller}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={() => (drag.current = null)}
          onWheel={onWheel}
        >
          <div className="viewer-page" style={{ width: dispW, height: dispW * aspect }}>
            {img.url ? (
              <img src={img.url} alt={t('viewer.imageAlt', { title, page: page?.ordinal ?? '' })} draggable={false} />
            ) : (
              <div className="placeholder fill">{img.error || t('viewer.rendering')}</div>
            )}
            <Overlay regions={regions} label={t('viewer.citedRegion')} />
            {tableBox && <Overlay regions={[tableBox]} label={t('viewer.chooseTable')} kind="table" />}
          </div>
        </div>
      </div>
    </div>
  )
}
