import type { GraphInfo, MemorizeInfo } from './events'
import { buildGraph, NODE_W, thumbSize } from './graph'

const graph: GraphInfo = {
  nodes: [
    { id: 'root', type: 'root', query: 'Q' },
    { id: 'n1', type: 'search', parents: ['root'], query: 'revenue', summary: 'found the table' },
    { id: 'n2', type: 'search', parents: ['root'], query: 'costs' },
    { id: 'ans', type: 'answer', parents: ['n1', 'n2'], answer: '4.2M' },
  ],
  edges: [
    { from: 'root', to: 'n1' },
    { from: 'root', to: 'n2' },
    { from: 'n1', to: 'ans' },
    { from: 'ghost', to: 'ans' },
  ],
  budgets: [
    { node_id: 'n1', information_id: 'Picture 1', unit_id: '11', energy: 1, omega: 1.2, selected: true, pixels: 1000000, visual_tokens: 1275 },
    { node_id: 'n1', information_id: 'Picture 2', unit_id: '12', energy: 0.2, omega: 0.2, selected: true, pixels: 250000, visual_tokens: 318 },
    { node_id: 'n2', information_id: 'Picture 1', unit_id: '13', energy: 0.1, omega: 0.1, selected: false, pixels: 0, visual_tokens: 0 },
  ],
  total_pixels: 1250000,
}
const memories: Record<string, MemorizeInfo> = {
  n1: {
    node_id: 'n1',
    summary: 'found the table',
    items: [{ information_id: 'Picture 1', unit_id: '11', page: 3, document_name: 'r.pdf', is_useful: true, priority_score: 5, kept: true }],
  },
}

describe('buildGraph', () => {
  it('draws every node once with edges from both edge lists and parents, dropping unknown ends', () => {
    const { nodes, edges } = buildGraph(graph, memories)
    expect(nodes.map((n) => n.id)).toEqual(['root', 'n1', 'n2', 'ans'])
    expect(edges.map((e) => e.id).sort()).toEqual(['n1->ans', 'n2->ans', 'root->n1', 'root->n2'])
  })

  it('lays the DAG out top to bottom without overlaps', () => {
    const { nodes } = buildGraph(graph, memories)
    const y = Object.fromEntries(nodes.map((n) => [n.id, n.position.y]))
    expect(y.root).toBeLessThan(y.n1)
    expect(y.n1).toBeLessThan(y.ans)
    const [a, b] = [nodes[1], nodes[2]]
    expect(Math.abs(a.position.x - b.position.x)).toBeGreaterThanOrEqual(NODE_W)
  })

  it('sizes memory thumbnails by their share of the pixel budget and skips unselected items', () => {
    const { nodes } = buildGraph(graph, memories)
    const n1 = nodes.find((n) => n.id === 'n1')!
    expect(n1.data.thumbs.map((t) => t.informationId)).toEqual(['Picture 1', 'Picture 2'])
    expect(n1.data.thumbs[0].size).toBe(72)
    expect(n1.data.thumbs[1].size).toBe(36) // a quarter of the pixels: half the side
    expect(n1.data.thumbs[0].documentName).toBe('r.pdf')
    expect(nodes.find((n) => n.id === 'n2')!.data.thumbs).toEqual([])
  })

  it('is empty without a graph', () => {
    expect(buildGraph(undefined)).toEqual({ nodes: [], edges: [] })
  })

  it('keeps tiny budgets visible', () => {
    expect(thumbSize(1, 1_000_000)).toBe(18)
    expect(thumbSize(0, 0)).toBe(18)
  })
})
