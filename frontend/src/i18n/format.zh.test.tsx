// Plural rules and Intl formatting in Simplified Chinese, and the language choice.
import { render, screen } from '@testing-library/react'
import { chooseLanguage, currentLanguage, i18n, matchLanguage, storedChoice, t } from '.'
import { Shell } from '../components/Shell'
import { formatBytes, formatDate, formatDuration, formatNumber, formatRate, ingestNotice, progressLine } from '../lib/format'

describe('zh-CN', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('zh-CN')
  })
  afterEach(async () => {
    localStorage.clear()
    await i18n.changeLanguage('en')
  })

  it('has one plural form, English two', async () => {
    expect(t('shell.documents', { count: 1 })).toBe('1 份文档')
    expect(t('shell.documents', { count: 5 })).toBe('5 份文档')
    await i18n.changeLanguage('en')
    expect(t('shell.documents', { count: 1 })).toBe('1 document')
    expect(t('shell.documents', { count: 5 })).toBe('5 documents')
  })

  it('formats numbers, sizes, rates, durations and dates through Intl', () => {
    expect(formatNumber(1234567)).toBe('1,234,567')
    expect(formatNumber(3.25, 1)).toBe('3.3')
    expect(formatBytes(1536)).toBe('1.5 KB')
    expect(formatRate(3.25)).toBe('3.3 页/秒')
    expect(formatDuration(42)).toBe('42 秒')
    expect(formatDuration(125)).toBe('2 分 05 秒')
    expect(formatDuration(3 * 3600 + 7 * 60)).toBe('3 小时 07 分')
    expect(formatDate(new Date(2025, 0, 2))).toBe('2025年1月2日')
    expect(formatDate(new Date(2025, 0, 2), 'en')).toBe('Jan 2, 2025')
  })

  it('writes progress and ingest notices in Chinese', () => {
    expect(progressLine({ stage: 'ocr', done: 12, total: 40, pages_per_s: 3.2, eta_s: 9 })).toBe(
      '文字识别 · 12/40 页 · 3.2 页/秒 · 预计剩余 9 秒',
    )
    expect(ingestNotice([{ name: 'a.pdf', done: 9, total: 10 }])).toBe('仍在导入——a.pdf：第 10 页（共 10）尚不可检索。')
  })

  it('draws a component in Chinese', () => {
    render(<Shell view="chat" onView={() => {}} status={{ version: 'v1', data_dir: '/d', collections: 2, documents: 1, schema_version: 3 }} error="" />)
    expect(screen.getByRole('heading').textContent).toBe('问答')
    expect(screen.getByTestId('collections').textContent).toContain('2 个文档集 · 1 份文档')
  })
})

describe('language choice', () => {
  afterEach(async () => {
    localStorage.clear()
    await i18n.changeLanguage('en')
  })

  it('follows the system locale', () => {
    expect(matchLanguage(['zh-TW', 'en'])).toBe('zh-CN')
    expect(matchLanguage(['zh-Hans-CN'])).toBe('zh-CN')
    expect(matchLanguage(['de-DE', 'en-GB'])).toBe('en')
    expect(matchLanguage(['fr'])).toBe('en')
  })

  it('remembers a choice and forgets it on auto', async () => {
    await chooseLanguage('zh-CN')
    expect(storedChoice()).toBe('zh-CN')
    expect(currentLanguage()).toBe('zh-CN')
    expect(document.documentElement.lang).toBe('zh-CN')
    await chooseLanguage('auto')
    expect(storedChoice()).toBe('auto')
    expect(currentLanguage()).toBe('en') // jsdom's navigator says en-US
  })
})

describe('pseudo-locale', () => {
  afterEach(async () => {
    localStorage.clear()
    await i18n.changeLanguage('en')
  })

  it('accents, lengthens by 40 % and keeps placeholders and tags', async () => {
    const { pseudoText } = await import('./pseudo')
    const p = pseudoText('Delete {{name}} now')
    expect(p.startsWith('[Ďéĺéţé {{name}} ñöŵ')).toBe(true)
    expect(p.length).toBeGreaterThanOrEqual(Math.round('Delete  now'.length * 1.4))
    expect(pseudoText('a <b>vrag</b> b')).toContain('<b>ṽŕàĝ</b>')
  })

  it('is a language the window can be switched to', async () => {
    await chooseLanguage('pseudo')
    expect(storedChoice()).toBe('pseudo')
    expect(t('nav.chat.label')).toBe('[Çĥàţ ~]')
    expect(currentLanguage()).toBe('en')
  })
})
