import { vragRun } from '../test/fixtures'
import { exportHTML, exportMarkdown } from './export'
import { replayRun } from './run'

describe('export', () => {
  const turns = [{ question: 'What is the revenue?', run: replayRun(vragRun()) }]
  it('writes Markdown with steps, answer and sources', () => {
    const md = exportMarkdown('Revenue', turns)
    expect(md).toContain('# Revenue')
    expect(md).toContain('- Searched “revenue 2023” → report.pdf p. 3')
    expect(md).toContain('- Zoomed into report.pdf p. 3, box [100, 200, 600, 500]')
    expect(md).toContain('**Answer:** Revenue was $4.2M.')
    expect(md).toContain('- report.pdf, page 3 (region 0.100, 0.140, 0.600, 0.360)')
  })
  it('writes self-contained HTML with the crops inlined and text escaped', async () => {
    const html = await exportHTML('<Revenue>', turns, {
      blob: async (h) => `data:image/jpeg;base64,${h.slice(0, 4)}`,
      pageImage: async (u) => `data:image/jpeg;base64,page${u}`,
    })
    expect(html).toContain('<title>&lt;Revenue&gt;</title>')
    expect(html).toContain('src="data:image/jpeg;base64,page11"')
    expect(html).toContain('src="data:image/jpeg;base64,cdcd"')
    expect(html).toContain('left:10%')
    expect(html).not.toMatch(/src="https?:/)
  })
})
