import { normRegion, percentRect, pixelRect, regionOf, zoomToRegion } from './geometry'

describe('crop overlay geometry', () => {
  it('maps a crop box in raw page pixels to percent of the drawn page', () => {
    // A 1000×1400 px page with the box [100,200,600,500]: 10%..60% across, 14.29%..35.71% down.
    const r = regionOf([100, 200, 600, 500], 1000, 1400)
    expect(percentRect(r)).toEqual({ left: 10, top: 14.29, width: 50, height: 21.43 })
  })

  it('is independent of the rendering size', () => {
    const r = regionOf([36, 72, 108, 144], 612, 792) // PDF points
    const a = pixelRect(r, 612, 792)
    const b = pixelRect(r, 306, 396)
    expect(a.left / 2).toBeCloseTo(b.left)
    expect(a.width / 2).toBeCloseTo(b.width)
    expect(a).toMatchObject({ left: 36, top: 72 })
  })

  const cases: Record<string, [[number, number, number, number], [number, number, number, number]]> = {
    'swapped corners': [[0.6, 0.5, 0.1, 0.2], [0.1, 0.2, 0.6, 0.5]],
    'outside the page': [[-0.2, 0.5, 1.3, 2], [0, 0.5, 1, 1]],
    'not a number': [[NaN, 0, 1, 1], [0, 0, 1, 1]],
  }
  for (const [name, [input, want]] of Object.entries(cases)) {
    it(`normalises ${name}`, () => expect(normRegion(input)).toEqual(want))
  }

  it('gives an empty region for a page without size', () => {
    expect(regionOf([1, 2, 3, 4], 0, 100)).toEqual([0, 0, 0, 0])
  })

  it('zooms so that a small region fills the viewport, centred', () => {
    const z = zoomToRegion([0.4, 0.4, 0.5, 0.45], 800, 1000, 800, 600)
    expect(z.zoom).toBe(4) // capped
    // The region centre (0.45·800·4, 0.425·1000·4) sits in the middle of the viewport.
    expect(z.scrollLeft).toBeCloseTo(0.45 * 800 * 4 - 400)
    expect(z.scrollTop).toBeCloseTo(0.425 * 1000 * 4 - 300)
    expect(zoomToRegion([0, 0, 1, 1], 800, 1000, 800, 600).zoom).toBe(1)
  })
})
