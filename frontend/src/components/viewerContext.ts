import { createContext, useContext } from 'react'
import type { Box4 } from '../lib/events'

/** What to open in the page viewer: a unit of a document, optionally with regions (0..1) to highlight. */
export interface ViewerTarget {
  documentId: number
  unitId: number
  title?: string
  regions?: Box4[]
}

export const ViewerContext = createContext<(t: ViewerTarget) => void>(() => {})

export function useOpenViewer() {
  return useContext(ViewerContext)
}
