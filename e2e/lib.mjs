// Shared helpers for the end-to-end tests: launch Debian's Chromium against the dev-tagged app's server.
import { chromium } from 'playwright-core'
import { mkdirSync } from 'node:fs'
import path from 'node:path'

export const appURL = process.env.PROOFGLASS_E2E_URL ?? 'http://127.0.0.1:34115/'
export const shotDir = path.resolve(process.env.PROOFGLASS_E2E_SHOTS ?? 'build/e2e')
mkdirSync(shotDir, { recursive: true })

// language ('zh-CN', 'pseudo', …) is the window's language choice, set before the page loads; none follows the system.
export async function openApp({ language } = {}) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  })
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  const errors = []
  // Errors thrown by our bundle. Wails' browser-mode IPC script (/wails/ipc.js, dev builds only) bundles its own
  // Svelte overlay that throws on some pages; it is not part of the product, so its errors are left out.
  page.on('pageerror', (e) => {
    if (!String(e.stack ?? '').includes('/wails/')) errors.push(String(e.stack ?? e))
  })
  if (language) await page.addInitScript((l) => localStorage.setItem('proofglass.language', l), language)
  await page.goto(appURL)
  // The Wails runtime connects over the dev websocket; the bindings appear on window.go once it has.
  await page.waitForFunction(() => window.go && window.go.desktop && window.go.desktop.LibraryService, null, { timeout: 30000 })
  return { browser, page, errors }
}

export function shot(name) {
  return path.join(shotDir, name + '.png')
}

export const testdata = path.resolve(process.env.PROOFGLASS_TESTDATA ?? '../../shared/testdata')

// A scripted OpenAI-compatible chat server: each /v1/chat/completions call streams the next reply of the script as
// SSE chunks. Tiny real models give meaningless text, so a scripted model is what makes crops and citations visible.
// Also records the requests so a test can check what the agent sent.
import http from 'node:http'

export async function startScriptedModel(modelName = 'scripted-vl') {
  let script = []
  const requests = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', async () => {
      if (req.method === 'GET' && req.url.endsWith('/models')) {
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ object: 'list', data: [{ id: modelName, object: 'model', owned_by: 'e2e' }] }))
        return
      }
      if (req.method === 'POST' && req.url.endsWith('/chat/completions')) {
        requests.push(JSON.parse(body || '{}'))
        const reply = script.shift() ?? '<answer>The script ran out.</answer>'
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        const chunk = (delta, finish = null) =>
          `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: modelName, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
        res.write(chunk({ role: 'assistant', content: '' }))
        // Stream in small pieces with short pauses so the UI visibly streams.
        for (let i = 0; i < reply.length; i += 12) {
          res.write(chunk({ content: reply.slice(i, i + 12) }))
          await new Promise((r) => setTimeout(r, 15))
        }
        res.write(chunk({}, 'stop'))
        res.write('data: [DONE]\n\n')
        res.end()
        return
      }
      res.statusCode = 404
      res.end('{}')
    })
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address()
  return {
    url: `http://127.0.0.1:${port}/v1`,
    model: modelName,
    requests,
    setScript: (s) => (script = [...s]),
    close: () => new Promise((r) => server.close(r)),
  }
}

// addByPath adds files through the library's "Add by path" field, as a person pasting paths would.
export async function addByPath(page, paths) {
  const details = page.locator('details.add-path')
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click()
  await page.getByLabel('Paths to add, one per line').fill(paths.join('\n'))
  await details.getByRole('button', { name: 'Add' }).click()
}

// useModel points the openai profile at a scripted server through the settings binding and makes it the default.
export async function useModel(page, model) {
  await page.evaluate(async ({ url, name }) => {
    const Settings = window.go.desktop.SettingsService
    const s = await Settings.Settings()
    for (const p of s.providers) if (p.name === 'openai') Object.assign(p, { base_url: url, chat_model: name, embed_model: '' })
    s.agent.provider = 'openai'
    await Settings.SaveSettings(s)
  }, { url: model.url, name: model.model })
}

// newCollection makes a collection from the UI and selects it.
export async function newCollection(page, name) {
  await page.getByLabel('New collection name').fill(name)
  await page.getByLabel('New collection name').press('Enter')
  const button = page.locator('.collections').getByRole('button', { name: new RegExp(`^${name}\\b`) })
  await button.waitFor()
  await button.click()
}

// ingestRow finds the progress row of a document by file name.
export function ingestRow(page, name) {
  return page.getByTestId('ingest-row').filter({ hasText: name })
}

// contrastIssues lists the visible text on the page whose colour contrast against what is painted behind it is below
// WCAG AA (4.5:1, or 3:1 for large text). Backgrounds are composited up the ancestor chain; disabled controls are
// exempt, as WCAG says.
export async function contrastIssues(page) {
  return page.evaluate(() => {
    const parse = (c) => {
      let m = c.match(/^rgba?\(([^)]+)\)$/)
      if (m) {
        const [r, g, b, a = '1'] = m[1].split(/[\s,/]+/).filter(Boolean)
        return [+r / 255, +g / 255, +b / 255, +a]
      }
      m = c.match(/^color\(srgb ([^)]+)\)$/)
      if (m) {
        const [r, g, b, a = '1'] = m[1].split(/[\s/]+/).filter(Boolean)
        return [+r, +g, +b, +a]
      }
      return null
    }
    const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat(1)
    const lum = (c) => {
      const f = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
      return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])
    }
    const backdrop = (el) => {
      const layers = []
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor)
        if (c && c[3] > 0) layers.push(c)
        if (c && c[3] >= 1) break
      }
      let bg = parse(getComputedStyle(document.documentElement).backgroundColor) ?? [1, 1, 1, 1]
      if (bg[3] < 1) bg = over(bg, [1, 1, 1, 1])
      for (const l of layers.reverse()) bg = over(l, bg)
      return bg
    }
    const out = []
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    const seen = new Set()
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement
      if (!el || seen.has(el) || !n.textContent.trim()) continue
      seen.add(el)
      if (el.closest('button:disabled, [aria-hidden="true"], .react-flow__attribution')) continue
      const r = el.getBoundingClientRect()
      const cs = getComputedStyle(el)
      if (r.width === 0 || r.height === 0 || cs.visibility === 'hidden' || +cs.opacity === 0) continue
      if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue
      const bg = backdrop(el)
      const fg0 = parse(cs.color)
      if (!fg0) continue
      // Opacity on the element or an ancestor fades the text into what is behind it.
      let alpha = fg0[3]
      for (let e = el; e; e = e.parentElement) alpha *= +getComputedStyle(e).opacity
      const fg = over([fg0[0], fg0[1], fg0[2], alpha], bg)
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x)
      const ratio = (a + 0.05) / (b + 0.05)
      const size = parseFloat(cs.fontSize)
      const large = size >= 24 || (size >= 18.66 && +cs.fontWeight >= 700)
      if (ratio < (large ? 3 : 4.5)) out.push({ text: n.textContent.trim().slice(0, 40), cls: el.className, ratio: +ratio.toFixed(2), fg: cs.color, bg: bg.slice(0, 3).map((v) => Math.round(v * 255)).join(',') })
    }
    return out
  })
}
