import { fireEvent, render, screen } from '@testing-library/react'
import { i18n } from '../i18n'
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
        notices={[
          { code: 'library_moved', params: { from: '/a', to: '/b' }, message: 'Loupe is now Proofglass: your library moved from /a to /b' },
          { code: 'from_a_later_release', message: 'second notice' },
        ]}
      />,
    )
    const banner = screen.getByTestId('notices')
    expect(banner.textContent).toContain('your library moved from /a to /b')
    // A code the catalogue has is translated; one it lacks shows the backend's English.
    expect(banner.querySelector('[title="Loupe is now Proofglass: your library moved from /a to /b"]')).not.toBeNull()
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

  it('shows a notice in Chinese when the window speaks it', async () => {
    await i18n.changeLanguage('zh-CN')
    try {
      render(<Shell view="library" onView={() => {}} status={null} error=""
        notices={[{ code: 'library_moved', params: { from: '/a', to: '/b' }, message: 'Loupe is now Proofglass: your library moved from /a to /b' }]} />)
      expect(screen.getByTestId('notices').textContent).toContain('您的资料库已从 /a 移到 /b')
    } finally {
      await i18n.changeLanguage('en')
    }
  })

  it('says when the backend is not connected', () => {
    render(<Shell view="chat" onView={() => {}} status={null} error="Backend not connected" />)
    expect(screen.getByTestId('status').textContent).toBe('Backend not connected')
    expect(screen.getByRole('heading').textContent).toBe('Chat')
  })
})
