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
