import { fireEvent, render, screen } from '@testing-library/react'
import { ViewerContext, type ViewerTarget } from '../../components/viewerContext'
import type { AgentEvent, GroundingInfo } from '../../lib/events'
import { exportMarkdown } from '../../lib/export'
import { groundingSummary } from '../../lib/grounding'
import { i18n } from '../../i18n'
import { replayRun } from '../../lib/run'
import { vragRun } from '../../test/fixtures'
import { GroundedAnswer, utf8Index } from './Grounding'

// "营收" is 6 bytes in UTF-8: the event's offsets are bytes, the marks must still land on the figures.
const text = '营收 3370.0 g and 3250.0 g; 4.9%'
const bytes = (s: string) => new TextEncoder().encode(s).length
const at = (s: string) => bytes(text.slice(0, text.indexOf(s)))

const grounding: GroundingInfo = {
  summary: '1 of 3 figures found in the cited evidence; 1 mismatch, 1 only elsewhere',
  figures: 3,
  figures_grounded: 1,
  names: 0,
  names_grounded: 0,
  elapsed_ms: 2,
  claims: [
    {
      text: '3370.0',
      kind: 'number',
      start: at('3370.0'),
      end: at('3370.0') + 6,
      status: 'region',
      note: 'in the cited region (page 2)',
      found: { unit_id: '12', document_id: '3', document_name: 'r.pdf', page: 2, text: '3370.0', boxes: [[0.5, 0.6, 0.55, 0.62]] },
    },
    {
      text: '3250.0',
      kind: 'number',
      start: at('3250.0'),
      end: at('3250.0') + 6,
      status: 'mismatch',
      note: '3250.0 — the cited region says 3200.0 (page 2)',
      found: { unit_id: '12', document_id: '3', document_name: 'r.pdf', page: 2, text: '3200.0', boxes: [[0.6, 0.6, 0.65, 0.62]] },
    },
    { text: '4.9%', kind: 'percent', start: at('4.9%'), end: at('4.9%') + 4, status: 'elsewhere', note: 'elsewhere in the document (page 1)' },
  ],
}

describe('grounded answer', () => {
  it('converts UTF-8 byte offsets to string indices', () => {
    expect(utf8Index(text, at('3370.0'))).toBe(text.indexOf('3370.0'))
    expect(utf8Index('a😀b', 5)).toBe(3)
  })

  it('marks each checked figure, says what was found, opens the page at the words', () => {
    const opened: ViewerTarget[] = []
    render(
      <ViewerContext.Provider value={(t) => opened.push(t)}>
        <GroundedAnswer text={text} grounding={grounding} />
      </ViewerContext.Provider>,
    )
    const marks = screen.getAllByTestId('claim')
    expect(marks.map((m) => [m.textContent, m.dataset.status])).toEqual([
      ['3370.0', 'region'],
      ['3250.0', 'mismatch'],
      ['4.9%', 'elsewhere'],
    ])
    expect(marks[1].title).toContain('the cited evidence has another value here')
    expect(marks[1].title).toContain('r.pdf p. 2: “3200.0”')
    expect(marks[1].className).toContain('claim-mismatch')
    expect(marks[2].getAttribute('role')).toBeNull() // nothing found to open
    fireEvent.click(marks[1])
    expect(opened).toEqual([{ documentId: 3, unitId: 12, title: 'r.pdf', regions: [[0.6, 0.6, 0.65, 0.62]] }])
    // The whole text is still there, in order.
    expect(marks[0].parentElement?.textContent).toContain(text)
    const summary = screen.getByTestId('grounding')
    expect(summary.textContent).toContain('1 of 3 figures found in the cited evidence')
    expect(summary.className).toContain('warn')
  })

  it('composes the same English line the backend writes, from the counts and statuses', () => {
    expect(groundingSummary(grounding)).toBe(grounding.summary)
    expect(groundingSummary({ ...grounding, claims: [] })).toBe('no checkable claim (no figures, dates, quotations or names)')
    const names: GroundingInfo = {
      ...grounding,
      figures: 1,
      figures_grounded: 1,
      names: 2,
      names_grounded: 0,
      claims: [grounding.claims![0], { ...grounding.claims![2], kind: 'name', status: 'not_found' }, { ...grounding.claims![2], kind: 'quote', status: 'not_found' }],
    }
    expect(groundingSummary(names)).toBe('1 of 1 figure and 0 of 2 names and quotations found in the cited evidence; 2 not found')
  })

  describe('in Chinese', () => {
    beforeEach(async () => {
      await i18n.changeLanguage('zh-CN')
    })
    afterEach(async () => {
      await i18n.changeLanguage('en')
    })

    it('says the summary, each claim and the export in Chinese', () => {
      render(
        <ViewerContext.Provider value={() => undefined}>
          <GroundedAnswer text={text} grounding={grounding} />
        </ViewerContext.Provider>,
      )
      expect(screen.getByTestId('grounding').textContent).toBe('⚠ 在引用的证据中找到 3 个数字中的 1 个；1 处不一致，1 处仅见于别处')
      const marks = screen.getAllByTestId('claim')
      expect(marks[1].title).toBe('引用的证据在此处是另一个值\nr.pdf 第 2 页: “3200.0”')
      expect(marks[2].title).toBe('只在别处找到，不在回答引用的位置')
      const evs = vragRun()
      const done = evs.pop() as AgentEvent
      const v = replayRun([...evs, { ...done, kind: 'grounding', grounding, done: undefined }, { ...done, seq: done.seq + 1 }])
      const md = exportMarkdown('t', [{ question: 'q', run: v }])
      expect(md).toContain('在引用的证据中找到 3 个数字中的 1 个')
      expect(md).toContain('- 3250.0: 引用的证据在此处是另一个值')
    })
  })

  it('is folded into the run view and the Markdown export', () => {
    const evs = vragRun()
    const done = evs.pop() as AgentEvent
    const g: AgentEvent = { ...done, kind: 'grounding', grounding, done: undefined }
    const v = replayRun([...evs, g, { ...done, seq: done.seq + 1 }])
    expect(v.grounding?.summary).toBe(grounding.summary)
    expect(v.done?.status).toBe('answered')
    const md = exportMarkdown('t', [{ question: 'q', run: v }])
    expect(md).toContain(`*Grounding: ${grounding.summary}*`)
    expect(md).toContain('- 3250.0: the cited evidence has another value here')
  })
})
