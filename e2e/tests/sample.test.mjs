import { test } from 'node:test'
import assert from 'node:assert/strict'
import { openApp, shot } from '../lib.mjs'

test('sample library: one click on the empty state ingests the bundled PDF, scan, image and film', async () => {
  const { browser, page, errors } = await openApp()
  try {
    await page.getByLabel('New collection name').fill('samples')
    await page.getByLabel('New collection name').press('Enter')
    await page.getByRole('button', { name: /^samples/ }).click()
    await page.getByTestId('empty-state').waitFor()
    await page.screenshot({ path: shot('library-empty-sample') })
    await page.getByRole('button', { name: 'Try the sample library' }).click()
    // Every sample reaches done: text layer, OCR of a scan and an image, and a video's keyframes.
    await page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll('[data-testid="ingest-row"]')]
        const names = ['gettysburg-address.pdf', 'huckleberry-finn-page.pdf', 'congress-1871.jpg', 'shepard-calais-1906.ogv']
        return names.every((n) => rows.some((r) => r.textContent.includes(n) && r.dataset.state === 'done'))
      },
      null,
      { timeout: 180000 },
    ).catch(async (e) => {
      await page.screenshot({ path: shot('library-samples-failed') })
      const rows = await page.getByTestId('ingest-row').allTextContents()
      throw new Error(`samples did not all finish: ${rows.join(' | ')}`, { cause: e })
    })
    // The grid refreshes after the last document is done.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-grid"] li').length === 4, null, {
      timeout: 30000,
    })
    await page.screenshot({ path: shot('library-samples') })

    // The text layer and the OCR of the scanned page are both searchable.
    const search = (q) => page.evaluate((q) => window.go.desktop.LibraryService.Search(q, 'samples', 3), q)
    assert.equal((await search('Gettysburg nation dedicated')).hits[0].doc, 'gettysburg-address.pdf')
    assert.equal((await search('tiptoed along the path amongst the trees')).hits[0].doc, 'huckleberry-finn-page.pdf')
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})
