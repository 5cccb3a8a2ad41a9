import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot, testdata } from '../lib.mjs'

// A scripted /rerank server (the shape vLLM serves): the last candidate it is sent scores 0.9, the others 0.1, so
// the page the first stage ranked lowest among the candidates must come first.
async function startReranker() {
  const requests = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/rerank')) {
        res.statusCode = 404
        res.end('{}')
        return
      }
      const r = JSON.parse(body || '{}')
      requests.push(r)
      const n = r.documents.length
      const results = r.documents.map((_, i) => ({ index: i, relevance_score: i === n - 1 ? 0.9 : 0.1 }))
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ id: 'rerank-1', model: r.model, results }))
    })
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => new Promise((r) => server.close(r)) }
}

test('rerank: a configured reranker reorders the library search, is tested from Settings, and a downed one is named', async () => {
  const reranker = await startReranker()
  const { browser, page, errors } = await openApp()
  try {
    await newCollection(page, 'rerank')
    await addByPath(page, [path.join(testdata, 'pdf/real/blood_loss_report.pdf')])
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.textContent.includes('blood_loss_report') && r.dataset.state === 'done'),
      null,
      { timeout: 180000 },
    )
    await ingestRow(page, 'blood_loss_report.pdf').waitFor()

    // Settings → Reranking: a profile for the reranker, an endpoint reranker on it, tested and saved.
    await page.evaluate(async (url) => {
      const Settings = window.go.desktop.SettingsService
      const s = await Settings.Settings()
      s.providers = s.providers.filter((p) => p.name !== 'reranker')
      s.providers.push({ name: 'reranker', kind: 'openai', base_url: url, chat_model: '', embed_model: '', sampling: {} })
      await Settings.SaveSettings(s)
    }, reranker.url)
    await page.getByRole('button', { name: 'Settings', exact: true }).click()
    await page.getByTestId('rerank-settings').waitFor()
    await page.getByLabel('Reranker', { exact: true }).selectOption('endpoint')
    await page.getByLabel('Profile', { exact: true }).selectOption('reranker')
    await page.locator('#rerank-model').fill('BAAI/bge-reranker-v2-m3')
    await page.getByLabel('Pages reranked').fill('10')
    await page.getByTestId('rerank-test').click()
    await page.getByTestId('rerank-result').waitFor({ timeout: 30000 })
    // The scripted scores favour the last sample, which is the one that answers: the check says it works.
    assert.match(await page.getByTestId('rerank-result').textContent(), /^Works/)
    await page.getByTestId('rerank-settings').screenshot({ path: shot('rerank-settings') })
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.locator('.settings [role="status"]', { hasText: 'Saved.' }).waitFor()

    // The library's search: the first hit is the reranker's choice, with its score and first-stage rank.
    await page.getByRole('button', { name: 'Library', exact: true }).click()
    await page.getByLabel('Search pages').fill('blood loss')
    await page.getByLabel('Search pages').press('Enter')
    await page.getByTestId('rerank-note').waitFor({ timeout: 30000 })
    const sent = reranker.requests.at(-1)
    assert.equal(sent.model, 'BAAI/bge-reranker-v2-m3')
    assert.ok(sent.documents.length > 1 && sent.documents.length <= 10, `${sent.documents.length} candidates`)
    assert.match(await page.getByTestId('rerank-note').textContent(), new RegExp(`reranked the first ${sent.documents.length} pages`))
    const first = await page.getByTestId('hit').first().textContent()
    assert.match(first, new RegExp(`rerank 0\\.900 · was #${sent.documents.length}`), first)
    await page.screenshot({ path: shot('rerank-search') })

    // The reranker goes away: the search still answers, in first-stage order, and says which reranker failed.
    await reranker.close()
    await page.getByLabel('Search pages').fill('blood loss sample size')
    await page.getByLabel('Search pages').press('Enter')
    await page.getByTestId('rerank-failed').waitFor({ timeout: 30000 })
    assert.match(await page.getByTestId('rerank-failed').textContent(), /rerank endpoint BAAI\/bge-reranker-v2-m3 .* failed, so these results are in first-stage order/)
    assert.match(await page.getByTestId('rerank-failed').getAttribute('title'), /connect|refused/)
    assert.ok((await page.getByTestId('hit').count()) > 0)
    assert.match(await page.getByTestId('hit').first().textContent(), /score /)
    await page.screenshot({ path: shot('rerank-failed') })

    // Off again and the document gone, so later tests search as before.
    await page.evaluate(async () => {
      const Settings = window.go.desktop.SettingsService
      const s = await Settings.Settings()
      s.rerank = { kind: '', provider: '', model: '', candidates: 0, images: false }
      await Settings.SaveSettings(s)
      const Library = window.go.desktop.LibraryService
      const c = (await Library.Collections()).find((x) => x.name === 'rerank')
      for (const d of (await Library.Documents(c.id)) ?? []) await Library.DeleteDocument(d.id)
    })
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})
