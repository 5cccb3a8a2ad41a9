import { fireEvent, render, screen } from '@testing-library/react'
import type { IngestProgress } from '../../lib/types'
import { documentError, IngestList, ingestError, needsPassword } from './Progress'

const failed = (error: string): IngestProgress => ({ seq: 3, document_id: 4, name: 'locked.pdf', stage: 'failed', done: 0, total: 0, error })

describe('IngestList', () => {
  it('asks for the password of an encrypted PDF and retries with it', () => {
    const calls: [IngestProgress, string | undefined][] = []
    render(<IngestList items={[failed('pdf locked.pdf: password required (give it with: proofglass documents retry 4 --ask-password)')]} onRetry={(p, pw) => calls.push([p, pw])} />)
    const input = screen.getByLabelText('Password for locked.pdf')
    const open = screen.getByRole('button', { name: 'Open' })
    expect(open).toHaveProperty('disabled', true)
    fireEvent.change(input, { target: { value: 'view' } })
    fireEvent.click(open)
    expect(calls).toHaveLength(1)
    expect(calls[0][1]).toBe('view')
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull()
  })

  it('offers a plain retry for other failures', () => {
    const calls: string[] = []
    render(<IngestList items={[failed('damaged or not a PDF: document has no pages')]} onRetry={(p, pw) => calls.push(p.name + ':' + (pw ?? ''))} />)
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(calls).toEqual(['locked.pdf:'])
    expect(needsPassword(failed('password required'))).toBe(true)
    expect(needsPassword({ ...failed('password required'), document_id: undefined })).toBe(false)
  })
})

describe('backend failure codes', () => {
  afterEach(async () => {
    const { i18n } = await import('../../i18n')
    await i18n.changeLanguage('en')
  })

  it('shows a known code in the window language, and the English text for an unknown one', async () => {
    const { i18n } = await import('../../i18n')
    const locked = { ...failed('pdf /x/locked.pdf: password required (give it with: …)'), code: 'password_required', params: { name: 'locked.pdf' } }
    expect(ingestError(locked)).toBe('locked.pdf is encrypted: enter its password to open it.')
    expect(needsPassword(locked)).toBe(true)
    expect(needsPassword({ ...locked, code: 'damaged' })).toBe(false)
    await i18n.changeLanguage('zh-CN')
    expect(ingestError(locked)).toBe('locked.pdf 已加密：请输入密码以打开。')
    expect(ingestError({ ...locked, code: 'future_code' })).toBe(locked.error)
    render(<IngestList items={[{ ...failed('x: empty file'), code: 'empty', params: { name: 'x' } }]} onRetry={() => {}} />)
    expect(screen.getByRole('alert').textContent).toBe('x：文件为空。')
  })

  it('says a stored document\'s failure from the code its meta keeps, else its English error', async () => {
    const { i18n } = await import('../../i18n')
    const doc = { error: 'bad40.pdf: damaged file: no trailer', meta: '{"error_code":"damaged","error_params":{"name":"bad40.pdf"}}' }
    expect(documentError(doc)).toContain('bad40.pdf')
    expect(documentError(doc)).not.toBe(doc.error)
    await i18n.changeLanguage('zh-CN')
    expect(documentError(doc)).toMatch(/bad40\.pdf.*[\u4e00-\u9fff]/)
    expect(documentError({ ...doc, meta: '{}' })).toBe(doc.error)
    expect(documentError({ ...doc, meta: 'not json' })).toBe(doc.error)
    expect(documentError({ ...doc, meta: '{"error_code":"future_code"}' })).toBe(doc.error)
  })
})
