// Geometry of boxes drawn over page images: everything is reduced to 0..1 fractions of the page, then to CSS percent.
import type { Box4 } from './events'

export interface Rect {
  left: number
  top: number
  width: number
  height: number
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0)

/** normRegion orders the corners and clamps a 0..1 region to the page. */
export function normRegion(box: Box4): Box4 {
  const [x0, y0, x1, y1] = box.map(clamp01)
  return [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)]
}

/** regionOf maps a box in pixels (or points) of a w×h page to a 0..1 region. */
export function regionOf(box: Box4, w: number, h: number): Box4 {
  if (w <= 0 || h <= 0) return [0, 0, 0, 0]
  return normRegion([box[0] / w, box[1] / h, box[2] / w, box[3] / h])
}

/** percentRect is the CSS box (in % of the page element) for a 0..1 region. */
export function percentRect(region: Box4): Rect {
  const [x0, y0, x1, y1] = normRegion(region)
  const r = (n: number) => Math.round(n * 10000) / 100
  return { left: r(x0), top: r(y0), width: r(x1 - x0), height: r(y1 - y0) }
}

/** pixelRect is the box in pixels of a page displayed at dispW×dispH. */
export function pixelRect(region: Box4, dispW: number, dispH: number): Rect {
  const [x0, y0, x1, y1] = normRegion(region)
  return { left: x0 * dispW, top: y0 * dispH, width: (x1 - x0) * dispW, height: (y1 - y0) * dispH }
}

/**
 * zoomToRegion returns the zoom factor and scroll offset that fit a region (with a margin) into a viewport of
 * vw×vh, for a page whose fit-to-width size is pageW×pageH at zoom 1.
 */
export function zoomToRegion(region: Box4, pageW: number, pageH: number, vw: number, vh: number, margin = 0.15) {
  const [x0, y0, x1, y1] = normRegion(region)
  const rw = Math.max(0.02, x1 - x0) * pageW * (1 + 2 * margin)
  const rh = Math.max(0.02, y1 - y0) * pageH * (1 + 2 * margin)
  const zoom = Math.min(4, Math.max(1, Math.min(vw / rw, vh / rh)))
  const cx = ((x0 + x1) / 2) * pageW * zoom
  const cy = ((y0 + y1) / 2) * pageH * zoom
  return { zoom, scrollLeft: Math.max(0, cx - vw / 2), scrollTop: Math.max(0, cy - vh / 2) }
}
