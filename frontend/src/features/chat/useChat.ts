import { useCallback, useEffect, useState } from 'react'
import { hasBackend } from '../../lib/generated/services'
import { chatApi, onAgentEvent } from './api'
import { emptyRun, reduceRun, replayRun, type RunView } from '../../lib/run'
import type { AskRequest, Conversation } from '../../lib/types'

export interface Turn {
  question: string
  runKey?: string
  /** The answer text as stored, for turns whose run has no events. */
  stored?: string
  error?: string
  /** Set when the question was asked while documents were still being ingested: which pages it could not see. */
  notice?: string
}

/** AskOptions are a question's choices besides its text and conversation: backend/desktop's AskRequest, from Go. */
export type AskOptions = Omit<AskRequest, 'conversation_id' | 'question'>

/** useChat holds conversations, the turns of the open one and every run's folded events (live or replayed). */
export function useChat() {
  const [conversations, setConversations] = useState<Conversation[]>([])
  const [current, setCurrent] = useState<number>(0)
  const [turns, setTurns] = useState<Turn[]>([])
  const [runs, setRuns] = useState<Record<string, RunView>>({})
  const [activeRun, setActiveRun] = useState<string>('')

  const reload = useCallback(() => {
    if (!hasBackend()) return
    chatApi.conversations().then((c) => setConversations(c ?? []), () => {})
  }, [])
  useEffect(reload, [reload])

  useEffect(
    () =>
      onAgentEvent((ev) => {
        setRuns((rs) => ({ ...rs, [ev.run_id]: reduceRun(rs[ev.run_id] ?? emptyRun(ev.run_id), ev) }))
        if (ev.kind === 'done') reload()
      }),
    [reload],
  )

  const open = useCallback(async (id: number) => {
    setCurrent(id)
    setTurns([])
    if (!id) return
    const msgs = (await chatApi.messages(id)) ?? []
    const out: Turn[] = []
    for (const m of msgs) {
      if (m.role === 'user') out.push({ question: m.content })
      else if (out.length) {
        const t = out[out.length - 1]
        t.stored = m.content
        if (m.run_id) {
          // Live runs are keyed by the agent's run id, which is the stored run's id: one key for both.
          const key = String(m.run_id)
          t.runKey = key
          chatApi.runEvents(m.run_id).then(
            (evs) => setRuns((rs) => (rs[key]?.done ? rs : { ...rs, [key]: replayRun(evs ?? []) })),
            () => {},
          )
        }
      }
    }
    setTurns(out)
  }, [])

  const ask = useCallback(
    async (question: string, o: AskOptions, notice?: string) => {
      const turn: Turn = notice ? { question, notice } : { question }
      setTurns((ts) => [...ts, turn])
      try {
        const started = await chatApi.ask({ conversation_id: current, question, ...o })
        setCurrent(started.conversation_id)
        setActiveRun(started.run_id)
        setRuns((rs) => (rs[started.run_id] ? rs : { ...rs, [started.run_id]: emptyRun(started.run_id) }))
        setTurns((ts) => ts.map((t) => (t === turn ? { ...t, runKey: started.run_id } : t)))
        reload()
      } catch (e) {
        setTurns((ts) => ts.map((t) => (t === turn ? { ...t, error: String(e instanceof Error ? e.message : e) } : t)))
      }
    },
    [current, reload],
  )

  const stop = useCallback(() => {
    if (activeRun) chatApi.stop(activeRun).catch(() => {})
  }, [activeRun])

  const newChat = useCallback(() => {
    setCurrent(0)
    setTurns([])
    setActiveRun('')
  }, [])

  const running = Boolean(activeRun && runs[activeRun] && !runs[activeRun].done)
  return { conversations, current, turns, runs, activeRun, running, open, ask, stop, newChat, reload, setActiveRun }
}

export type ChatState = ReturnType<typeof useChat>
