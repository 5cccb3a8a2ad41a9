// Builds the memory-graph drawing from a run's graph and memorize events: xyflow nodes placed by a dagre layout.
import dagre from '@dagrejs/dagre'
import type { Budget, GraphInfo, MemorizeInfo } from './events'

export interface MemoryThumb {
  informationId: string
  unitId?: string
  page?: number
  documentName?: string
  pixels: number
  /** Display side in px, proportional to the square root of the item's pixel budget. */
  size: number
  omega: number
}

export interface MemNodeData extends Record<string, unknown> {
  id: string
  type: string
  query?: string
  summary?: string
  answer?: string
  /** A calculation node's expression and result ("42.86%"). */
  expression?: string
  result?: string
  thumbs: MemoryThumb[]
}

export interface FlowNode {
  id: string
  type: 'memory'
  position: { x: number; y: number }
  data: MemNodeData
  width: number
  height: number
}

export interface FlowEdge {
  id: string
  source: string
  target: string
}

export const NODE_W = 240
const THUMB_MAX = 72
const THUMB_MIN = 18

/** thumbSize maps a pixel budget to a displayed side: area proportional to the budget, largest = THUMB_MAX. */
export function thumbSize(pixels: number, maxPixels: number): number {
  if (pixels <= 0 || maxPixels <= 0) return THUMB_MIN
  return Math.max(THUMB_MIN, Math.round(THUMB_MAX * Math.sqrt(pixels / maxPixels)))
}

function nodeHeight(d: MemNodeData): number {
  const textLines = (d.query ? 2 : 0) + (d.summary ? 3 : 0) + (d.answer ? 3 : 0) + (d.expression ? 2 : 0)
  const thumbs = d.thumbs.length ? Math.max(...d.thumbs.map((t) => t.size)) + 8 : 0
  return 40 + textLines * 16 + thumbs
}

export function buildGraph(
  graph: GraphInfo | undefined,
  memories: Record<string, MemorizeInfo> = {},
): { nodes: FlowNode[]; edges: FlowEdge[] } {
  const graphNodes = graph?.nodes ?? []
  if (!graph || graphNodes.length === 0) return { nodes: [], edges: [] }
  const budgets: Budget[] = graph.budgets ?? []
  const maxPixels = Math.max(0, ...budgets.map((b) => b.pixels))
  const g = new dagre.graphlib.Graph()
  g.setGraph({ rankdir: 'TB', nodesep: 32, ranksep: 48 })
  g.setDefaultEdgeLabel(() => ({}))
  const data: MemNodeData[] = graphNodes.map((n) => {
    const mem = memories[n.id]
    const thumbs: MemoryThumb[] = budgets
      .filter((b) => b.node_id === n.id && b.selected)
      .map((b) => {
        const item = mem?.items?.find((i) => i.information_id === b.information_id)
        return {
          informationId: b.information_id,
          unitId: b.unit_id ?? item?.unit_id,
          page: item?.page,
          documentName: item?.document_name,
          pixels: b.pixels,
          size: thumbSize(b.pixels, maxPixels),
          omega: b.omega,
        }
      })
      .sort((a, b) => b.pixels - a.pixels)
    return {
      id: n.id,
      type: n.type,
      query: n.query,
      summary: n.summary ?? mem?.summary,
      answer: n.answer,
      expression: n.expression,
      result: n.result,
      thumbs,
    }
  })
  for (const d of data) g.setNode(d.id, { width: NODE_W, height: nodeHeight(d) })
  const known = new Set(data.map((d) => d.id))
  const edges: FlowEdge[] = []
  const seen = new Set<string>()
  const addEdge = (from: string, to: string) => {
    const id = `${from}->${to}`
    if (seen.has(id) || !known.has(from) || !known.has(to)) return
    seen.add(id)
    edges.push({ id, source: from, target: to })
    g.setEdge(from, to)
  }
  for (const e of graph.edges ?? []) addEdge(e.from, e.to)
  for (const n of graphNodes) for (const p of n.parents ?? []) addEdge(p, n.id)
  dagre.layout(g)
  const nodes: FlowNode[] = data.map((d) => {
    const p = g.node(d.id)
    const h = nodeHeight(d)
    return { id: d.id, type: 'memory', data: d, width: NODE_W, height: h, position: { x: p.x - NODE_W / 2, y: p.y - h / 2 } }
  })
  return { nodes, edges }
}
