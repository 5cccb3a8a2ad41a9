import { fireEvent, render, screen } from '@testing-library/react'
import { DocumentLinks } from './DocumentLinks'

describe('DocumentLinks', () => {
  it('lists a message’s attachments and the message a document is attached to, each opening its document', () => {
    const opened: number[] = []
    render(
      <DocumentLinks
        links={[
          { document_id: 4, name: 'message.eml', attachment: false },
          { document_id: 7, name: 'prices.csv', attachment: true },
          { document_id: 9, name: 'review.docx', attachment: true },
        ]}
        onOpen={(id) => opened.push(id)}
      />,
    )
    const box = screen.getByRole('region', { name: 'Linked documents' })
    expect(box.textContent).toContain('Attached to')
    expect(box.textContent).toContain('Attachments')
    fireEvent.click(screen.getByRole('button', { name: 'review.docx' }))
    fireEvent.click(screen.getByRole('button', { name: 'message.eml' }))
    expect(opened).toEqual([9, 4])
  })

  it('shows nothing for a document without links', () => {
    const { container } = render(<DocumentLinks links={[]} onOpen={() => {}} />)
    expect(container.textContent).toBe('')
  })
})
