import { fireEvent, render, screen } from '@testing-library/react'
import { createRef } from 'react'
import { vi } from 'vitest'
import { Chat, type ScopeDoc } from './Chat'
import type { ChatState } from './useChat'

function chatState(ask: ChatState['ask']): ChatState {
  return {
    conversations: [],
    current: 0,
    turns: [],
    runs: {},
    activeRun: '',
    running: false,
    open: async () => {},
    ask,
    stop: () => {},
    newChat: () => {},
    reload: () => {},
    setActiveRun: () => {},
  }
}

describe('Chat scope', () => {
  const renderChat = (scope: ScopeDoc[], ask: ChatState['ask'], onScope = vi.fn()) =>
    render(
      <Chat
        chat={chatState(ask)}
        collection="papers"
        scope={scope}
        onScope={onScope}
        ingesting={[]}
        defaults={{ mode: 'vrag', think: false }}
        inputRef={createRef<HTMLTextAreaElement>()}
        onShowGraph={() => {}}
      />,
    )

  it('shows the scope as chips and sends its documents with the question', () => {
    const ask = vi.fn()
    const onScope = vi.fn()
    renderChat([{ id: 7, name: 'report.pdf' }, { id: 9, name: 'slides.pdf' }], ask, onScope)
    expect(screen.getByTestId('scope').textContent).toContain('report.pdf')
    fireEvent.change(screen.getByLabelText('Question'), { target: { value: 'What is the revenue?' } })
    fireEvent.click(screen.getByRole('button', { name: 'Ask' }))
    expect(ask).toHaveBeenCalledTimes(1)
    expect(ask.mock.calls[0][1]).toEqual({ mode: 'vrag', think: false, collection: 'papers', documents: [7, 9] })
    fireEvent.click(screen.getByRole('button', { name: 'Remove report.pdf from the scope' }))
    expect(onScope).toHaveBeenCalledWith([{ id: 9, name: 'slides.pdf' }])
  })

  it('asks across the collection without a scope', () => {
    const ask = vi.fn()
    renderChat([], ask)
    expect(screen.queryByTestId('scope')).toBeNull()
    fireEvent.change(screen.getByLabelText('Question'), { target: { value: 'Anything?' } })
    fireEvent.click(screen.getByRole('button', { name: 'Ask' }))
    expect(ask.mock.calls[0][1]).toEqual({ mode: 'vrag', think: false, collection: 'papers' })
  })

  it('narrows the scope by facets when a filter is given', () => {
    const ask = vi.fn()
    renderChat([], ask)
    fireEvent.change(screen.getByRole('textbox', { name: 'Filter by facets' }), { target: { value: ' org=acme,year=2022 ' } })
    fireEvent.change(screen.getByLabelText('Question'), { target: { value: 'Revenue?' } })
    fireEvent.click(screen.getByRole('button', { name: 'Ask' }))
    expect(ask.mock.calls[0][1]).toEqual({ mode: 'vrag', think: false, collection: 'papers', where: 'org=acme,year=2022' })
  })
})
