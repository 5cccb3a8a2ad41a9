import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot, testdata } from '../lib.mjs'

test('retry: a damaged PDF makes a failed row with its reason; Retry ingests it again from the stored original', async () => {
  const { browser, page, errors } = await openApp()
  try {
    await newCollection(page, 'retry')
    // Every ingest progress event, as the UI receives it.
    await page.evaluate(() => {
      window.__ingest = []
      window.runtime.EventsOn('ingest:progress', (p) => window.__ingest.push(p))
    })
    // A PDF whose page tree is broken: it is stored, then fails to open.
    await addByPath(page, [path.join(testdata, 'bad/pdf/qpdf/issue-119.pdf'), path.join(testdata, 'pdf/real/blood_loss_report.pdf')])
    const row = ingestRow(page, 'issue-119.pdf')
    await page.waitForFunction(() => document.querySelector('[data-testid="ingest-row"][data-state="failed"]'), null, { timeout: 60000 })
    // The reason in the window's words; the backend's full English reason stays on hover.
    assert.match(await row.getByRole('alert').textContent(), /issue-119\.pdf is damaged/)
    assert.match(await row.getByRole('alert').getAttribute('title'), /issue-119\.pdf: damaged or not a PDF: document has no pages/)
    // The rest of the batch goes on.
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.textContent.includes('blood_loss') && r.dataset.state === 'done'),
      null,
      { timeout: 60000 },
    )
    const card = page.getByTestId('doc-card').filter({ hasText: 'issue-119.pdf' })
    assert.equal(await card.getAttribute('data-status'), 'failed')
    assert.equal(await card.locator('.badge.failed').textContent(), 'failed')
    await page.screenshot({ path: shot('retry-failed') })

    const docId = await page.evaluate(() => window.__ingest.find((p) => p.name === 'issue-119.pdf' && p.document_id)?.document_id)
    assert.ok(docId > 0, 'the failed document was stored')
    const before = await page.evaluate((id) => window.__ingest.filter((p) => p.document_id === id).length, docId)
    await row.getByRole('button', { name: 'Retry' }).click()
    // The retry runs the document again: new progress events for it, ending failed again with the same reason.
    await page.waitForFunction(
      ({ id, n }) => window.__ingest.filter((p) => p.document_id === id).slice(n).some((p) => p.stage === 'failed'),
      { id: docId, n: before },
      { timeout: 60000 },
    )
    const again = await page.evaluate(({ id, n }) => window.__ingest.filter((p) => p.document_id === id).slice(n), { id: docId, n: before })
    assert.ok(again.length >= 1, JSON.stringify(again))
    assert.match(again.at(-1).error, /document has no pages/)
    await page.waitForFunction(() => document.querySelector('[data-testid="ingest-row"][data-state="failed"]'))
    assert.match(await row.getByRole('alert').getAttribute('title'), /document has no pages/)
    assert.equal(await row.getByRole('button', { name: 'Retry' }).count(), 1, 'it can be retried again')
    // Still one document for the file: a retry does not duplicate it.
    const docs = await page.evaluate(async () => {
      const c = (await window.go.desktop.LibraryService.Collections()).find((c) => c.name === 'retry')
      return (await window.go.desktop.LibraryService.Documents(c.id)).map((d) => `${d.name}:${d.status}`).sort()
    })
    assert.deepEqual(docs, ['blood_loss_report.pdf:ready', 'issue-119.pdf:failed'])
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})

test('retry: an encrypted PDF asks for its password in the failed row and opens with it', async () => {
  const { browser, page, errors } = await openApp()
  try {
    await newCollection(page, 'locked')
    await addByPath(page, [path.join(testdata, 'bad/pdf/qpdf/enc-R3,V2,U=view,O=master.pdf')])
    const row = ingestRow(page, 'enc-R3,V2,U=view,O=master.pdf')
    await page.waitForFunction(() => document.querySelector('[data-testid="ingest-row"][data-state="failed"]'), null, { timeout: 60000 })
    assert.match(await row.getByRole('alert').textContent(), /is encrypted: enter its password/)
    assert.match(await row.getByRole('alert').getAttribute('title'), /password required/)
    const input = row.getByLabel(/^Password for /)
    await input.fill('view')
    await page.screenshot({ path: shot('retry-password') })
    await row.getByRole('button', { name: 'Open' }).click()
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.textContent.includes('enc-R3') && r.dataset.state === 'done'),
      null,
      { timeout: 60000 },
    )
    const docs = await page.evaluate(async () => {
      const c = (await window.go.desktop.LibraryService.Collections()).find((c) => c.name === 'locked')
      return (await window.go.desktop.LibraryService.Documents(c.id)).map((d) => `${d.status}:${d.pages}`)
    })
    assert.deepEqual(docs, ['ready:30'])
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})
