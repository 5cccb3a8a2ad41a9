// Exports a conversation to Markdown and to a self-contained HTML report (crops and pages inlined as data URLs).
import { currentLanguage, t as tr } from '../i18n'
import { formatDate } from './format'
import { claimStatus, grounded, groundingSummary } from './grounding'
import { liveAnswer, type RunView } from './run'
import type { CalculationInfo } from './events'

export interface ExportTurn {
  question: string
  run?: RunView
  stored?: string
}

function cite(run?: RunView): string[] {
  return (run?.answer?.citations ?? []).map(
    (c) =>
      c.region
        ? tr('export.citationRegion', { doc: c.document_name, page: c.page, region: c.region.map((n) => n.toFixed(3)).join(', ') })
        : tr('export.citation', { doc: c.document_name, page: c.page }),
  )
}

/** groundingLines says what the grounding pass found: its summary, then each claim not found where it was cited. */
function groundingLines(run?: RunView): string[] {
  const g = run?.grounding
  if (!g) return []
  const doubtful = (g.claims ?? []).filter((c) => !grounded(c.status))
  return [tr('export.grounding', { summary: groundingSummary(g) }), ...doubtful.map((c) => `${c.text}: ${claimStatus(c)}`)]
}

/** calcLine says a calculation in one line: its expression and result (or error), then its operands and pages. */
function calcLine(c: CalculationInfo): string {
  const ops = (c.operands ?? [])
    .map((o) => (o.source?.page ? tr('export.calcOperandPage', { name: o.name, value: o.value, page: o.source.page }) : `${o.name} = ${o.value}`))
    .join(', ')
  return c.error
    ? tr('export.calcFailed', { id: c.id, expression: c.expression, error: c.error })
    : tr('export.calculated', { id: c.id, expression: c.expression, result: c.text ?? '', operands: ops })
}

export function exportMarkdown(title: string, turns: ExportTurn[]): string {
  const out: string[] = [`# ${title}`, '']
  for (const t of turns) {
    out.push(`## ${t.question}`, '')
    const info = t.run?.info
    if (info) out.push(`*${info.model ? tr('export.modeModel', { mode: info.mode, model: info.model }) : tr('export.mode', { mode: info.mode })}*`, '')
    for (const s of t.run?.steps ?? []) {
      if (s.type === 'search') {
        const pages = (s.results?.hits ?? []).filter((h) => h.shown).map((h) => tr('export.docPage', { doc: h.document_name, page: h.page }))
        out.push(`- ${tr('export.searched', { query: s.query })}${pages.length ? ` → ${pages.join(', ')}` : ''}`)
      } else if (s.type === 'crop') {
        out.push(`- ${tr('export.zoomed', { doc: s.crop.document_name, page: s.crop.page, box: s.crop.bbox_raw.map(Math.round).join(', ') })}`)
      } else if (s.type === 'memorize') {
        out.push(`- ${tr('export.memorised', { id: s.memorize.node_id, summary: s.memorize.summary })}`)
      } else if (s.type === 'calculation') {
        out.push(`- ${calcLine(s.calculation)}`)
      }
    }
    const answer = t.run ? liveAnswer(t.run) : (t.stored ?? '')
    out.push('', `**${tr('export.answer')}** ${answer || tr('export.noAnswer')}`, '')
    const g = groundingLines(t.run)
    if (g.length) out.push(`*${g[0]}*`, ...g.slice(1).map((x) => `- ${x}`), '')
    const c = cite(t.run)
    if (c.length) out.push(tr('export.sources'), ...c.map((x) => `- ${x}`), '')
  }
  return out.join('\n')
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

export interface ImageSource {
  blob: (hash: string) => Promise<string>
  pageImage: (unitId: number, width: number) => Promise<string>
}

export async function exportHTML(title: string, turns: ExportTurn[], images: ImageSource): Promise<string> {
  const img = async (p: Promise<string>) => {
    try {
      return await p
    } catch {
      return ''
    }
  }
  const body: string[] = []
  for (const t of turns) {
    body.push(`<section><h2><span class="q">${esc(tr('export.question'))}</span> ${esc(t.question)}</h2>`)
    const info = t.run?.info
    if (info) {
      const meta = [tr('export.metaMode', { mode: info.mode })]
      if (info.model) meta.push(tr('export.metaModel', { model: info.model }))
      body.push(`<p class="meta">${esc(meta.join(' · '))}</p>`)
    }
    for (const s of t.run?.steps ?? []) {
      if (s.type === 'search') {
        body.push(`<p class="step">${esc(tr('export.searched', { query: s.query }))}</p>`)
      } else if (s.type === 'crop') {
        const c = s.crop
        const [x0, y0, x1, y1] = c.region
        const page = await img(images.pageImage(Number(c.unit_id), 512))
        const crop = await img(images.blob(c.image.image.blob))
        body.push(
          `<div class="crop"><figure><div class="page"><img src="${page}" alt="${esc(tr('export.pageAlt', { page: c.page }))}"><div class="box" style="left:${x0 * 100}%;top:${y0 * 100}%;width:${(x1 - x0) * 100}%;height:${(y1 - y0) * 100}%"></div></div><figcaption>${esc(tr('export.docPage', { doc: c.document_name, page: c.page }))}</figcaption></figure>` +
            `<figure><img src="${crop}" alt="${esc(tr('export.cropAlt'))}"><figcaption>${esc(tr('export.zoomedCrop'))}</figcaption></figure></div>`,
        )
      } else if (s.type === 'memorize') {
        body.push(`<p class="step">${esc(tr('export.memorised', { id: s.memorize.node_id, summary: s.memorize.summary }))}</p>`)
      } else if (s.type === 'calculation') {
        body.push(`<p class="step">${esc(calcLine(s.calculation))}</p>`)
      }
    }
    const answer = t.run ? liveAnswer(t.run) : (t.stored ?? '')
    body.push(`<div class="answer">${esc(answer)}</div>`)
    const g = groundingLines(t.run)
    if (g.length) body.push(`<p class="meta">${g.map(esc).join('<br>')}</p>`)
    const c = cite(t.run)
    if (c.length) body.push(`<ul class="sources">${c.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>`)
    body.push('</section>')
  }
  return `<!doctype html><html lang="${currentLanguage()}"><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;max-width:860px;margin:2em auto;padding:0 1em;color:#1b1c1f}
.step{color:#5b5f69}.answer{background:#f1f4fb;padding:.8em 1em;border-radius:8px;white-space:pre-wrap}
.crop{display:flex;gap:1em;align-items:flex-start}figure{margin:0}figure img{max-width:380px;display:block;border:1px solid #dfe1e6}
.page{position:relative}.box{position:absolute;border:2px solid #e5484d;background:rgba(229,72,77,.12)}
.kicker,.meta{color:#5b5f69;font-size:.9em;margin:.2em 0}section{border-top:1px solid #dfe1e6;margin-top:1.5em;padding-top:.5em}
.q{display:inline-block;background:#2459d6;color:#fff;border-radius:4px;padding:0 .35em;font-size:.85em;margin-right:.3em}
figcaption{color:#5b5f69;font-size:.9em;margin-top:.3em}.sources{color:#3b3f48}
</style></head><body><header><p class="kicker">${esc(tr('export.exported', { date: formatDate(new Date()) }))}</p><h1>${esc(title)}</h1></header>${body.join('\n')}</body></html>`
}
