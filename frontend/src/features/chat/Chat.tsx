import { memo, useCallback, useEffect, useRef, useState } from 'react'
import { modes } from '../../lib/events'
import { liveAnswer, type RunView } from '../../lib/run'
import { progressState, type IngestProgress } from '../../lib/types'
import { exportHTML, exportMarkdown } from '../../lib/export'
import { formatNumber, ingestNotice, promptsCut } from '../../lib/format'
import { libraryApi } from '../library/api'
import { chatApi } from './api'
import { Trans, useTranslation } from '../../i18n'
import { CitationChips, StepCard } from './StepCard'
import { RewriteNote } from './RewriteNote'
import { GroundedAnswer } from './Grounding'
import type { ChatState, Turn } from './useChat'

/** A document the chat's questions are scoped to. */
export type ScopeDoc = { id: number; name: string }

type Props = {
  chat: ChatState
  collection: string
  /** Documents the agent searches; empty means the whole collection. */
  scope?: ScopeDoc[]
  onScope?: (docs: ScopeDoc[]) => void
  ingesting: IngestProgress[]
  defaults: { mode: string; think: boolean }
  inputRef: React.RefObject<HTMLTextAreaElement | null>
  onShowGraph: (runKey: string) => void
}

export function Chat({ chat, collection, scope = [], onScope, ingesting, defaults, inputRef, onShowGraph }: Props) {
  const { t } = useTranslation()
  const [question, setQuestion] = useState('')
  // "Edit" on an understood follow-up: its standalone form goes into the box, to be corrected and asked again.
  const editQuestion = useCallback(
    (q: string) => {
      setQuestion(q)
      inputRef?.current?.focus()
    },
    [inputRef],
  )
  const [mode, setMode] = useState(defaults.mode || 'vrag')
  const [think, setThink] = useState(defaults.think)
  const [calculator, setCalculator] = useState(false)
  const [exportMsg, setExportMsg] = useState('')
  const [where, setWhere] = useState('')
  const turnsRef = useRef<HTMLDivElement>(null)
  useEffect(() => {
    setMode(defaults.mode || 'vrag')
    setThink(defaults.think)
  }, [defaults.mode, defaults.think])

  const lastRun = chat.turns.length ? chat.runs[chat.turns[chat.turns.length - 1].runKey ?? ''] : undefined
  useEffect(() => {
    // Follow the stream; scrollIntoView would also scroll the window's other containers.
    const el = turnsRef.current
    if (el) el.scrollTop = el.scrollHeight
  }, [chat.turns.length, lastRun?.lastSeq])

  // Documents of this collection (or of any, when asking across all) still being ingested.
  const pending = ingesting.filter(
    (p) => progressState(p) === 'running' && (!collection || !p.collection || p.collection === collection),
  )
  const send = (e?: React.FormEvent) => {
    e?.preventDefault()
    const q = question.trim()
    if (!q || chat.running) return
    const documents = scope.map((d) => d.id)
    const base = documents.length ? { mode, think, collection, documents } : { mode, think, collection }
    // The calculator is sent only when on: off, the request (and the agent's prompts) stay as they were.
    const o = calculator && mode !== 'vanilla' ? { ...base, calculator: true } : base
    chat.ask(q, where.trim() ? { ...o, where: where.trim() } : o, ingestNotice(pending))
    setQuestion('')
  }

  // Ask where first (the dialog is native), then build the report: the HTML one inlines every crop and page image.
  const doExport = async (kind: 'md' | 'html') => {
    const title = chat.conversations.find((c) => c.id === chat.current)?.title || chat.turns[0]?.question || t('chat.conversation')
    const name = title.replace(/[^\w\- ]+/g, '').slice(0, 60).trim() || 'conversation'
    try {
      const path = await chatApi.chooseSavePath(`${name}.${kind}`)
      if (!path) return
      setExportMsg(t('chat.exporting'))
      const turns = chat.turns.map((t) => ({ question: t.question, run: t.runKey ? chat.runs[t.runKey] : undefined, stored: t.stored }))
      const content = kind === 'md' ? exportMarkdown(title, turns) : await exportHTML(title, turns, libraryApi)
      await chatApi.writeTextFile(path, content)
      setExportMsg(t('chat.saved', { path }))
    } catch (err) {
      setExportMsg(String(err))
    }
  }

  return (
    <div className="chat">
      <aside className="conversations" aria-label={t('chat.conversations')}>
        <button className="primary" onClick={chat.newChat} title={t('nav.shortcut', { key: 'N' })}>
          {t('chat.newChat')}
        </button>
        <ul>
          {chat.conversations.map((c) => (
            <li key={c.id}>
              <button
                className={c.id === chat.current ? 'nav active' : 'nav'}
                aria-current={c.id === chat.current ? 'true' : undefined}
                onClick={() => chat.open(c.id)}
              >
                <span className="ellipsis">{c.title || t('chat.untitled')}</span>
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <section className="chat-main">
        <div className="chat-bar">
          <span className="muted">{t('chat.collection', { name: collection || t('chat.allCollections') })}</span>
          {scope.length > 0 && (
            <span className="scope-chips" role="group" aria-label={t('chat.scope')} data-testid="scope">
              {scope.map((d) => (
                <span key={d.id} className="chip" title={t('chat.onlySearched', { name: d.name })}>
                  <span className="ellipsis">{d.name}</span>
                  {onScope && (
                    <button
                      className="link"
                      aria-label={t('chat.removeFromScope', { name: d.name })}
                      onClick={() => onScope(scope.filter((x) => x.id !== d.id))}
                    >
                      ×
                    </button>
                  )}
                </span>
              ))}
            </span>
          )}
          <input
            className="where"
            aria-label={t('facets.whereLabel')}
            placeholder={t('facets.wherePlaceholder')}
            value={where}
            onChange={(e) => setWhere(e.target.value)}
          />
          <span className="spacer" />
          {exportMsg && (
            <span className="muted small ellipsis" role="status" data-testid="export-msg" title={exportMsg}>
              {exportMsg}
            </span>
          )}
          {chat.turns.length > 0 && (
            <>
              <button onClick={() => doExport('md')}>{t('chat.exportMarkdown')}</button>
              <button onClick={() => doExport('html')}>{t('chat.exportHTML')}</button>
            </>
          )}
        </div>
        <div className="turns" aria-live="polite" ref={turnsRef}>
          {chat.turns.length === 0 && (
            <div className="empty small-empty">
              <h2>{t('chat.emptyTitle')}</h2>
              <p className="muted">
                <Trans i18nKey="chat.emptyBody" components={{ b: <b /> }} />
              </p>
            </div>
          )}
          {chat.turns.map((t, i) => (
            <TurnView key={i} turn={t} run={t.runKey ? chat.runs[t.runKey] : undefined} onShowGraph={onShowGraph} onEdit={editQuestion} />
          ))}
        </div>
        {pending.length > 0 && (
          <p className="notice" role="status" data-testid="ingest-notice">
            {ingestNotice(pending)}
          </p>
        )}
        <form className="composer" onSubmit={send}>
          <textarea
            ref={inputRef}
            aria-label={t('chat.question')}
            placeholder={t('chat.questionPlaceholder')}
            rows={2}
            value={question}
            onChange={(e) => setQuestion(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) send(e)
            }}
          />
          <div className="composer-controls">
            <label>
              {t('chat.mode')}{' '}
              <select aria-label={t('chat.mode')} value={mode} onChange={(e) => setMode(e.target.value)}>
                {modes.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </label>
            <label className="toggle">
              <input type="checkbox" checked={think} onChange={(e) => setThink(e.target.checked)} /> {t('chat.thinking')}
            </label>
            {mode !== 'vanilla' && (
              <label className="toggle" title={t('chat.calculatorHint')}>
                <input type="checkbox" checked={calculator} onChange={(e) => setCalculator(e.target.checked)} /> {t('chat.calculator')}
              </label>
            )}
            <span className="spacer" />
            {chat.running ? (
              <button type="button" className="danger" onClick={chat.stop} title="Esc">
                {t('common.stop')}
              </button>
            ) : (
              <button type="submit" className="primary" disabled={!question.trim()}>
                {t('chat.ask')}
              </button>
            )}
          </div>
        </form>
      </section>
    </div>
  )
}

// Memoised: the chat re-renders with every ingest progress frame, its finished turns need not.
const TurnView = memo(function TurnView({
  turn,
  run,
  onShowGraph,
  onEdit,
}: {
  turn: Turn
  run?: RunView
  onShowGraph: (k: string) => void
  onEdit: (q: string) => void
}) {
  const { t } = useTranslation()
  const answer = run ? liveAnswer(run) : (turn.stored ?? '')
  const running = run && !run.done && !turn.error
  return (
    <article className="turn" data-testid="turn">
      <div className="question">{turn.question}</div>
      {turn.notice && (
        <p className="notice turn-notice" data-testid="turn-ingest-notice">
          {turn.notice} {t('chat.couldNotUse')}
        </p>
      )}
      {run?.rewrite && <RewriteNote rewrite={run.rewrite} onEdit={onEdit} />}
      {run?.info && (
        <div className="muted small">
          {run.info.mode}
          {run.info.model ? ` · ${run.info.model}` : ''}
          {run.info.think ? ` · ${t('chat.infoThinking')}` : ''}
          {run.info.documents?.length ? ` · ${t('chat.infoDocuments', { count: run.info.documents.length })}` : ''}
          {run.info.options?.num_ctx ? ` · ${t('chat.infoContext', { n: run.info.options.num_ctx })}` : ''}
        </div>
      )}
      <div className="steps">
        {run?.steps.map((s) => <StepCard key={s.seq + s.type} step={s} />)}
      </div>
      {turn.error && (
        <p className="error" role="alert">
          {turn.error}
        </p>
      )}
      {(answer || running) && (
        <div className="answer" data-testid="answer">
          {run?.answer && run.grounding ? (
            <GroundedAnswer text={run.answer.text} grounding={run.grounding} />
          ) : (
            answer || <span className="muted">{t('chat.working')}</span>
          )}
          {running && <span className="cursor" aria-hidden="true" />}
        </div>
      )}
      {run?.answer && <CitationChips citations={run.answer.citations ?? []} />}
      {run?.done && (
        <div className="muted small usage" data-testid="usage">
          {t(`chat.status.${run.done.status}`, { defaultValue: run.done.status })} ·{' '}
          {t('chat.modelCalls', { count: run.done.usage.steps + (run.done.usage.rewrite_calls ?? 0) })} ·{' '}
          {t('chat.images', { count: run.done.usage.images })} · {t('chat.visualTokens', { count: run.done.usage.visual_tokens })} ·{' '}
          {t('chat.seconds', { s: formatNumber(run.done.usage.wall_ms / 1000, 1) })}
          {promptsCut(run.done.usage) && (
            <span className="warn" data-testid="prompts-cut">
              {' '}
              · {t('chat.promptsCut', { counted: run.done.usage.prompt_tokens, sent: run.done.usage.prompt_tokens_sent })}
            </span>
          )}
          {run.graph && turn.runKey && (
            <button className="link" onClick={() => onShowGraph(turn.runKey ?? '')}>
              {t('chat.showGraph')}
            </button>
          )}
        </div>
      )}
    </article>
  )
})
