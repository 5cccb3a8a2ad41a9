import { fireEvent, render, screen } from '@testing-library/react'
import { Shell } from './Shell'

describe('Shell', () => {
  it('shows the backend status and switches views', () => {
    const views: string[] = []
    render(
      <Shell
        view="library"
        onView={(v) => views.push(v)}
        status={{ version: 'v1', data_dir: '/d', collections: 1, documents: 3, schema_version: 3 }}
        error=""
      />,
    )
    expect(screen.getByTestId('collections').textContent).toContain('1 collection · 3 documents')
    expect(screen.getByRole('button', { name: 'Library' }).getAttribute('aria-current')).toBe('page')
    fireEvent.click(screen.getByRole('button', { name: 'Chat' }))
    expect(views).toEqual(['chat'])
  })

  it('shows one-time notices until each is dismissed', () => {
    render(
      <Shell
        view="library"
        onView={() => {}}
        status={null}
        error=""
        notices={['Loupe is now Proofglass: your library moved from /a to /b', 'second notice']}
      />,
    )
    const banner = screen.getByTestId('notices')
    expect(banner.textContent).toContain('your library moved from /a to /b')
    expect(banner.textContent).toContain('second notice')
    fireEvent.click(screen.getAllByRole('button', { name: 'Dismiss' })[0])
    expect(screen.getByTestId('notices').textContent).not.toContain('your library moved')
    expect(screen.getByTestId('notices').textContent).toContain('second notice')
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }))
    expect(screen.queryByTestId('notices')).toBeNull()
  })

  it('shows no banner without notices', () => {
    render(<Shell view="library" onView={() => {}} status={null} error="" notices={[]} />)
    expect(screen.queryByTestId('notices')).toBeNull()
  })

  it('says when the backend is not connected', () => {
    render(<Shell view="chat" onView={() => {}} status={null} error="Backend not connected" />)
    expect(screen.getByTestId('status').textContent).toBe('Backend not connected')
    expect(screen.getByRole('heading').textContent).toBe('Chat')
  })
})
