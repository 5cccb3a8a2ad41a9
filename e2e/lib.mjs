// Shared helpers for the end-to-end tests: launch Debian's Chromium against the dev-tagged app's server.
import { chromium } from 'playwright-core'
import { mkdirSync } from 'node:fs'
import path from 'node:path'

export const appURL = process.env.LOUPE_E2E_URL ?? 'http://127.0.0.1:34115/'
export const shotDir = path.resolve(process.env.LOUPE_E2E_SHOTS ?? 'build/e2e')
mkdirSync(shotDir, { recursive: true })

export async function openApp() {
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
  await page.goto(appURL)
  // The Wails runtime connects over the dev websocket; the bindings appear on window.go once it has.
  await page.waitForFunction(() => window.go && window.go.main && window.go.main.App, null, { timeout: 30000 })
  return { browser, page, errors }
}

export function shot(name) {
  return path.join(shotDir, name + '.png')
}

export const testdata = path.resolve(process.env.LOUPE_TESTDATA ?? '../../shared/testdata')

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
