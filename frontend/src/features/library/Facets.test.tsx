import { act, fireEvent, render, screen } from '@testing-library/react'
import { Facets } from './Facets'
import type { DocumentFacets } from '../../lib/types'

const extracted: DocumentFacets = {
  document_id: 7,
  facets: { title: 'ACME ROBOTICS INC. Form 10-K 2021', org: 'ACME ROBOTICS INC.', kind: '10-K', year: '2021', date: '2021-12-31' },
  user: {},
  kinds: ['10-K', '10-Q', 'annual report'],
  links: [],
}

describe('Facets', () => {
  it('shows each facet, with none for a missing one', () => {
    render(<Facets facets={extracted} onSet={async () => {}} onReset={async () => {}} />)
    const box = screen.getByRole('region', { name: 'Facets' })
    expect(box.textContent).toContain('Organisation')
    expect(box.textContent).toContain('ACME ROBOTICS INC.')
    expect(box.textContent).toContain('2021-12-31')
    expect(box.textContent).toContain('(none)') // quarter
    expect(screen.queryByText('edited')).toBeNull()
  })

  it('shows an e-mail’s sender and recipients only for a document that has them', () => {
    const { rerender } = render(<Facets facets={extracted} onSet={async () => {}} onReset={async () => {}} />)
    expect(screen.queryByText('From')).toBeNull()
    expect(screen.queryByText('To')).toBeNull()
    const mail: DocumentFacets = {
      ...extracted,
      facets: { title: 'Q3 figures', date: '2023-11-14', from: 'Ana Ruiz <ana@example.org>', to: 'board@example.org' },
    }
    rerender(<Facets facets={mail} onSet={async () => {}} onReset={async () => {}} />)
    expect(screen.getByText('From')).toBeTruthy()
    expect(screen.getByText('Ana Ruiz <ana@example.org>')).toBeTruthy()
    expect(screen.getByText('board@example.org')).toBeTruthy()
  })

  it('sends the edited value, marks it as the user’s, and resets it', async () => {
    const calls: string[] = []
    let current = extracted
    const { rerender } = render(
      <Facets facets={current} onSet={async (n, v) => void calls.push(`set ${n}=${v}`)} onReset={async (n) => void calls.push(`reset ${n}`)} />,
    )
    fireEvent.click(screen.getByRole('button', { name: 'Edit Year' }))
    const input = screen.getByRole('textbox', { name: 'New Year' }) as HTMLInputElement
    expect(input.value).toBe('2021')
    fireEvent.change(input, { target: { value: ' 2022 ' } })
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Save' })))
    expect(calls).toEqual(['set year=2022'])
    expect(screen.queryByRole('textbox')).toBeNull()

    current = { ...extracted, facets: { ...extracted.facets, year: '2022' }, user: { year: true } }
    rerender(
      <Facets facets={current} onSet={async (n, v) => void calls.push(`set ${n}=${v}`)} onReset={async (n) => void calls.push(`reset ${n}`)} />,
    )
    expect(screen.getByText('edited')).toBeTruthy()
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Use the extracted Year' })))
    expect(calls).toEqual(['set year=2022', 'reset year'])
  })

  it('shows why a save failed and keeps the edit open', async () => {
    render(
      <Facets
        facets={extracted}
        onSet={async () => {
          throw new Error('year "twenty": want a year such as 2022')
        }}
        onReset={async () => {}}
      />,
    )
    fireEvent.click(screen.getByRole('button', { name: 'Edit Year' }))
    fireEvent.change(screen.getByRole('textbox', { name: 'New Year' }), { target: { value: 'twenty' } })
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Save' })))
    expect(screen.getByRole('alert').textContent).toContain('want a year')
    expect(screen.getByRole('textbox', { name: 'New Year' })).toBeTruthy()
  })
})
