// Marks each checked figure and name of an answer with what the grounding pass found (backend/grounding).
import type { ReactNode } from 'react'
import { useOpenViewer } from '../../components/viewerContext'
import type { Box4, GroundingInfo } from '../../lib/events'
import { claimTitle, grounded, groundingSummary } from '../../lib/grounding'

/** utf8Index converts a byte offset of text's UTF-8 form (the grounding event's offsets) to a string index. */
export function utf8Index(text: string, byteOffset: number): number {
  let bytes = 0
  let i = 0
  while (i < text.length && bytes < byteOffset) {
    const cp = text.codePointAt(i) ?? 0
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
    i += cp > 0xffff ? 2 : 1
  }
  return i
}

/** GroundedAnswer shows an answer's text with its checked claims marked, and the pass's summary under it. */
export function GroundedAnswer({ text, grounding }: { text: string; grounding: GroundingInfo }) {
  const open = useOpenViewer()
  const claims = [...(grounding.claims ?? [])].sort((a, b) => a.start - b.start)
  const parts: ReactNode[] = []
  let at = 0
  claims.forEach((c, i) => {
    const from = utf8Index(text, c.start)
    const to = utf8Index(text, c.end)
    if (from < at || to <= from || text.slice(from, to) !== c.text) return // offsets of another text: leave it plain
    if (from > at) parts.push(text.slice(at, from))
    const found = c.found
    parts.push(
      <mark
        key={i}
        className={`claim claim-${c.status}`}
        data-testid="claim"
        data-status={c.status}
        title={claimTitle(c)}
        role={found ? 'button' : undefined}
        tabIndex={found ? 0 : undefined}
        onClick={
          found
            ? () =>
                open({
                  documentId: Number(found.document_id),
                  unitId: Number(found.unit_id),
                  title: found.document_name,
                  regions: (found.boxes ?? []) as Box4[],
                })
            : undefined
        }
      >
        {c.text}
      </mark>,
    )
    at = to
  })
  parts.push(text.slice(at))
  const doubtful = claims.filter((c) => !grounded(c.status)).length
  return (
    <>
      {parts}
      <div className={`grounding-summary small ${doubtful ? 'warn' : 'muted'}`} data-testid="grounding">
        {claims.length === 0 ? '' : doubtful ? '⚠ ' : '✓ '}
        {groundingSummary(grounding)}
      </div>
    </>
  )
}
