import { fireEvent, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { i18n } from '../../i18n'
import type { Document, FacetGroup } from '../../lib/types'
import { FacetBrowser, filterDocs, toggle, whereOf, type FacetSelection } from './FacetBrowser'

const doc = (id: number, name: string) => ({ id, name }) as Document
const docs = [doc(1, 'acme-10k-2022.pdf'), doc(2, 'acme-10k-2021.pdf'), doc(3, 'umbrella-ar-2022.pdf')]
const groups: FacetGroup[] = [
  { name: 'kind', values: [{ value: '10-K', documents: [1, 2] }, { value: 'annual report', documents: [3] }], more: 0 },
  { name: 'year', values: [{ value: '2022', documents: [1, 3] }, { value: '2021', documents: [2] }], more: 0 },
  { name: 'org', values: [{ value: 'Acme, Inc.', documents: [1, 2] }], more: 4 },
]

function Harness({ onWhere }: { onWhere: (w: string) => void }) {
  const [sel, setSel] = useState<FacetSelection>({})
  return (
    <>
      <FacetBrowser
        groups={groups}
        selected={sel}
        onToggle={(n, v) => {
          const next = toggle(sel, n, v)
          setSel(next)
          onWhere(whereOf(next, groups))
        }}
      />
      <ul>
        {filterDocs(docs, groups, sel).map((d) => (
          <li key={d.id} data-testid="doc">
            {d.name}
          </li>
        ))}
      </ul>
    </>
  )
}

describe('FacetBrowser', () => {
  it('filters the documents by the chosen values, sets the facet filter, and toggles a value off', () => {
    const wheres: string[] = []
    render(<Harness onWhere={(w) => wheres.push(w)} />)
    const names = () => screen.getAllByTestId('doc').map((d) => d.textContent)
    expect(names()).toHaveLength(3)
    fireEvent.click(screen.getByRole('button', { name: '2022 (2)' }))
    expect(names()).toEqual(['acme-10k-2022.pdf', 'umbrella-ar-2022.pdf'])
    fireEvent.click(screen.getByRole('button', { name: 'Acme, Inc. (2)' }))
    expect(names()).toEqual(['acme-10k-2022.pdf'])
    expect(screen.getByRole('button', { name: 'Acme, Inc. (2)' }).getAttribute('aria-pressed')).toBe('true')
    expect(wheres.at(-1)).toBe('year=2022,org=Acme, Inc.')
    fireEvent.click(screen.getByRole('button', { name: '2022 (2)' }))
    expect(names()).toEqual(['acme-10k-2022.pdf', 'acme-10k-2021.pdf'])
    expect(wheres.at(-1)).toBe('org=Acme, Inc.')
    expect(screen.getByText('and 4 more')).toBeTruthy()
  })

  it('speaks Chinese', async () => {
    await i18n.changeLanguage('zh-CN')
    try {
      render(<FacetBrowser groups={groups} selected={{}} onToggle={() => {}} />)
      expect(screen.getByRole('group', { name: '按文档属性筛选文档' })).toBeTruthy()
      expect(screen.getByRole('button', { name: '2021（1）' })).toBeTruthy()
      expect(screen.getByText('年份')).toBeTruthy()
      expect(screen.getByText('另有 4 个')).toBeTruthy()
    } finally {
      await i18n.changeLanguage('en')
    }
  })
})
