// The chat's calls to the Go backend (ChatService in backend/desktop/chat.go, generated wrappers) and its live
// agent:event stream, with lists never null.
import { t } from '../../i18n'
import { EventAgent, on } from '../../lib/bus'
import { ChatService as Chat, hasBackend } from '../../lib/generated/services'
import type { AgentEvent, AskRequest, AskStarted, Conversation, Message } from '../../lib/types'

export const chatApi = {
  conversations: async (): Promise<Conversation[]> => (await Chat.Conversations()) ?? [],
  messages: async (id: number): Promise<Message[]> => (await Chat.Messages(id)) ?? [],
  deleteConversation: (id: number): Promise<void> => Chat.DeleteConversation(id),
  runEvents: async (runId: number): Promise<AgentEvent[]> => (await Chat.RunEvents(runId)) ?? [],
  /** chooseSavePath asks, in a dialog titled in the window's language, where to save an export; "" when cancelled. */
  chooseSavePath: (defaultName: string): Promise<string> => Chat.ChooseSavePath(defaultName, t('dialog.exportConversation')),
  writeTextFile: (path: string, content: string): Promise<void> => Chat.WriteTextFile(path, content),
  ask: (r: AskRequest): Promise<AskStarted> => Chat.Ask(r),
  stop: (runId: string): Promise<void> => Chat.Stop(runId),
}

/** onAgentEvent subscribes to the live agent stream; returns the unsubscribe function. */
export function onAgentEvent(cb: (e: AgentEvent) => void): () => void {
  if (!hasBackend()) return () => {}
  return on(EventAgent, cb)
}
