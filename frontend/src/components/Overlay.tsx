import type { Box4 } from '../lib/events'
import { useTranslation } from '../i18n'
import { percentRect } from '../lib/geometry'

/** Boxes drawn over a page image; the parent must be position: relative and sized like the image. */
export function Overlay({ regions, label, kind }: { regions: Box4[]; label?: string; kind?: 'table' }) {
  const { t } = useTranslation()
  return (
    <>
      {regions.map((r, i) => {
        const p = percentRect(r)
        return (
          <div
            key={i}
            className={kind === 'table' ? 'region table-region' : 'region'}
            data-testid={kind === 'table' ? 'table-region' : 'region'}
            aria-label={label ?? t('viewer.highlighted')}
            style={{ left: p.left + '%', top: p.top + '%', width: p.width + '%', height: p.height + '%' }}
          />
        )
      })}
    </>
  )
}
