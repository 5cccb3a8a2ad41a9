import { useBlob, usePage } from '../lib/images'

type Props = { blob?: string; unitId?: number; width?: number; alt: string; className?: string }

/** Thumb shows a stored thumbnail blob, or renders the unit when it has none. */
export function Thumb({ blob, unitId, width = 256, alt, className }: Props) {
  const b = useBlob(blob)
  const p = usePage(blob ? undefined : unitId, width)
  const url = blob ? b.url : p.url
  const error = blob ? b.error : p.error
  if (!url) return <div className={'thumb placeholder ' + (className ?? '')} role="img" aria-label={alt} title={error || undefined} />
  return <img className={'thumb ' + (className ?? '')} src={url} alt={alt} loading="lazy" draggable={false} />
}
