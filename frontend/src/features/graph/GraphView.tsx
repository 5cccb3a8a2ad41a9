import { Background, Controls, Handle, Position, ReactFlow, type NodeProps, type Node } from '@xyflow/react'
import '@xyflow/react/dist/style.css'
import { useMemo, useState } from 'react'
import { Thumb } from '../../components/Thumb'
import { useOpenViewer } from '../../components/viewerContext'
import { useTranslation } from '../../i18n'
import { buildGraph, type MemNodeData } from '../../lib/graph'
import type { RunView } from '../../lib/run'

type MemNode = Node<MemNodeData, 'memory'>

function MemoryNode({ data, selected }: NodeProps<MemNode>) {
  const { t } = useTranslation()
  return (
    <div className={`mem-node ${data.type}${selected ? ' selected' : ''}`} data-testid="graph-node" data-node-id={data.id}>
      <Handle type="target" position={Position.Top} />
      <div className="mem-head">
        <span className="mem-type">{t(`graph.type.${data.type}`, { defaultValue: data.type })}</span> <code>{data.id}</code>
      </div>
      {data.query && <div className="mem-query">“{data.query}”</div>}
      {data.summary && <div className="mem-summary">{data.summary}</div>}
      {data.answer && <div className="mem-answer">{data.answer}</div>}
      {data.expression && (
        <div className="mem-calc" data-testid="graph-calculation">
          <code>{data.expression}</code> = <strong>{data.result}</strong>
        </div>
      )}
      {data.thumbs.length > 0 && (
        <div className="mem-thumbs">
          {data.thumbs.map((th) => (
            <div key={th.informationId} style={{ width: th.size, height: th.size }} title={t('graph.thumbTitle', { id: th.informationId, pixels: th.pixels })}>
              {th.unitId ? <Thumb unitId={Number(th.unitId)} width={128} alt={th.informationId} /> : null}
            </div>
          ))}
        </div>
      )}
      <Handle type="source" position={Position.Bottom} />
    </div>
  )
}

const nodeTypes = { memory: MemoryNode }

type Props = { runs: Record<string, RunView>; runKey: string; onRunKey: (k: string) => void }

/** GraphView draws a run's VimRAG memory graph (live while it streams) and shows a clicked node's evidence. */
export function GraphView({ runs, runKey, onRunKey }: Props) {
  const { t } = useTranslation()
  const open = useOpenViewer()
  const withGraph = Object.entries(runs).filter(([, r]) => r.graph)
  const key = runs[runKey]?.graph ? runKey : (withGraph[withGraph.length - 1]?.[0] ?? '')
  const run = runs[key]
  const { nodes, edges } = useMemo(() => buildGraph(run?.graph, run?.memories), [run?.graph, run?.memories])
  const [selected, setSelected] = useState<string>('')
  const sel = nodes.find((n) => n.id === selected)?.data
  const mem = sel ? run?.memories[sel.id] : undefined

  if (!run) {
    return (
      <div className="empty" data-testid="graph-empty">
        <h2>{t('graph.emptyTitle')}</h2>
        <p className="muted">{t('graph.emptyBody')}</p>
      </div>
    )
  }
  return (
    <div className="graph-view">
      <div className="graph-bar">
        <label>
          {t('graph.run')}{' '}
          <select value={key} onChange={(e) => onRunKey(e.target.value)} aria-label={t('graph.run')}>
            {withGraph.map(([k, r]) => (
              <option key={k} value={k}>
                {r.info?.question ?? k}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">
          {t('graph.counts', { nodes: nodes.length, edges: edges.length })}
          {run.done ? '' : ` · ${t('graph.live')}`}
        </span>
      </div>
      <div className="graph-body">
        <div className="graph-canvas" data-testid="graph-canvas">
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            fitView
            nodesDraggable={false}
            nodesConnectable={false}
            onNodeClick={(_, n) => setSelected(n.id)}
            proOptions={{ hideAttribution: true }}
          >
            <Background />
            <Controls showInteractive={false} />
          </ReactFlow>
        </div>
        <aside className="evidence" aria-label={t('graph.evidence')} data-testid="evidence">
          {sel ? (
            <>
              <h3>
                {t(`graph.type.${sel.type}`, { defaultValue: sel.type })} <code>{sel.id}</code>
              </h3>
              {sel.query && <p>{t('graph.query', { query: sel.query })}</p>}
              {sel.summary && <p>{sel.summary}</p>}
              {sel.answer && <p className="answer">{sel.answer}</p>}
              {sel.expression && (
                <p>
                  {t('graph.calculation', { expression: sel.expression, result: sel.result ?? '' })}
                </p>
              )}
              <ul className="evidence-items">
                {(mem?.items ?? []).map((i) => (
                  <li key={i.information_id} className={i.kept ? 'kept' : ''}>
                    {i.unit_id ? (
                      <button
                        className="evidence-thumb"
                        onClick={() =>
                          open({ documentId: 0, unitId: Number(i.unit_id), title: i.document_name ?? i.information_id })
                        }
                      >
                        <Thumb unitId={Number(i.unit_id)} width={256} alt={i.information_id} />
                      </button>
                    ) : null}
                    <span>
                      {i.information_id}
                      {i.document_name ? ` · ${t('step.docPage', { doc: i.document_name, page: i.page })}` : ''} ·{' '}
                      {t('step.priority', { score: i.priority_score })}
                      {i.kept ? ` · ${t('graph.keptInMemory')}` : ''}
                    </span>
                  </li>
                ))}
              </ul>
              {!mem && <p className="muted">{t('graph.noEvidence')}</p>}
            </>
          ) : (
            <p className="muted">{t('graph.clickNode')}</p>
          )}
        </aside>
      </div>
    </div>
  )
}
