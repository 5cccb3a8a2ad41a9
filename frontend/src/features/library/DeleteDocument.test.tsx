import { act, fireEvent, render, screen } from '@testing-library/react'
import { DeleteDocument } from './DeleteDocument'

describe('DeleteDocument', () => {
  it('asks first, and deletes only when confirmed', async () => {
    let calls = 0
    render(<DeleteDocument name="report.pdf" onDelete={async () => void calls++} />)
    fireEvent.click(screen.getByRole('button', { name: 'Delete document…' }))
    expect(screen.getByRole('group', { name: 'Delete report.pdf' })).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(calls).toBe(0)
    expect(screen.queryByRole('group')).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Delete document…' }))
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Delete' })))
    expect(calls).toBe(1)
  })

  it('shows why a delete failed and lets the user try again', async () => {
    let fail = true
    render(
      <DeleteDocument
        name="report.pdf"
        onDelete={async () => {
          if (fail) throw new Error('document 4: database is locked')
        }}
      />,
    )
    fireEvent.click(screen.getByRole('button', { name: 'Delete document…' }))
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Delete' })))
    expect(screen.getByRole('alert').textContent).toContain('database is locked')
    fail = false
    const again = screen.getByRole('button', { name: 'Delete' }) as HTMLButtonElement
    expect(again.disabled).toBe(false)
  })
})
