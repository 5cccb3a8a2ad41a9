// Says what the grounding pass found in the window's language, from its counts and statuses (the backend's summary
// and notes are English, for the CLI and the API).
import { t } from '../i18n'
import type { GroundedClaim, GroundingInfo } from './events'

/** grounded: only these statuses mean a claim was found where the answer says its evidence is, or computed by a
 * calculation from figures found there. */
export function grounded(status: string): boolean {
  return status === 'region' || status === 'cited_page' || status === 'computed'
}

/** groundingSummary is the pass in one line: "3 of 4 figures found in the cited evidence; 1 mismatch". */
export function groundingSummary(g: GroundingInfo): string {
  const claims = g.claims ?? []
  if (claims.length === 0) return t('grounding.none')
  const parts: string[] = []
  if (g.figures > 0) parts.push(t('grounding.figures', { count: g.figures, found: g.figures_grounded }))
  if (g.names > 0) parts.push(t('grounding.names', { count: g.names, found: g.names_grounded }))
  let line = t('grounding.found', { parts: parts.join(t('grounding.and')) })
  const count = (status: string) => claims.filter((c) => c.status === status).length
  const tail: string[] = []
  if (count('computed') > 0) tail.push(t('grounding.computed', { count: count('computed') }))
  if (count('mismatch') > 0) tail.push(t('grounding.mismatches', { count: count('mismatch') }))
  if (count('elsewhere') > 0) tail.push(t('grounding.elsewhere', { count: count('elsewhere') }))
  if (count('not_found') > 0) tail.push(t('grounding.notFound', { count: count('not_found') }))
  if (tail.length > 0) line += t('grounding.tailSep') + tail.join(t('grounding.listSep'))
  return line
}

/** claimStatus says where a claim was found, or not, in words; a status this window does not know keeps the note. */
export function claimStatus(c: GroundedClaim): string {
  switch (c.status) {
    case 'region':
      return t('grounding.status.region')
    case 'cited_page':
      return t('grounding.status.citedPage')
    case 'computed':
      return t('grounding.status.computed', { id: c.calculation ?? '' })
    case 'elsewhere':
      return t('grounding.status.elsewhere')
    case 'mismatch':
      return c.calculation ? t('grounding.status.calcMismatch', { id: c.calculation }) : t('grounding.status.mismatch')
    case 'not_found':
      return t('grounding.status.notFound')
  }
  return c.note
}

/** claimTitle is a claim's hover text: its status, then what the evidence says where it was found. */
export function claimTitle(c: GroundedClaim): string {
  const found = c.found ? `\n${t('chat.groundingFound', { doc: c.found.document_name, page: c.found.page })}: “${c.found.text}”` : ''
  return `${claimStatus(c)}${found}`
}
