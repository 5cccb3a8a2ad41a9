import { describe, expect, it } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/react'
import { RewriteNote } from './RewriteNote'

describe('RewriteNote', () => {
  it('shows how a follow-up was understood and where it searches first', () => {
    render(
      <RewriteNote
        rewrite={{
          asked: 'And in 2020?',
          question: 'What was the operating margin in 2020?',
          rewritten: true,
          reason: 'follow_up',
          prefer: [{ id: '3', name: 'annual-report.pdf' }],
        }}
      />,
    )
    expect(screen.getByTestId('understood-as').textContent).toBe('What was the operating margin in 2020?')
    expect(screen.getByTestId('prefer').textContent).toContain('annual-report.pdf')
    expect(screen.queryByTestId('rewrite-error')).toBeNull()
  })

  it('puts the understood question up for editing', () => {
    const edited: string[] = []
    render(
      <RewriteNote
        rewrite={{ asked: 'And in 2020?', question: 'What was the operating margin in 2020?', rewritten: true, reason: 'follow_up' }}
        onEdit={(q) => edited.push(q)}
      />,
    )
    fireEvent.click(screen.getByTestId('edit-understood'))
    expect(edited).toEqual(['What was the operating margin in 2020?'])
  })

  it('says when the rewrite failed and the question went as asked', () => {
    render(<RewriteNote rewrite={{ asked: 'And then?', question: 'And then?', rewritten: false, reason: 'follow_up', error: 'connection refused' }} />)
    expect(screen.queryByTestId('understood-as')).toBeNull()
    expect(screen.getByTestId('rewrite-error').textContent).toContain('connection refused')
  })
})
