import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { addByPath, openApp, shot, testdata } from '../lib.mjs'

test('library: add real files, watch progress reach done, browse pages, search with hit boxes, view a page', async () => {
  const { browser, page, errors } = await openApp()
  try {
    // A new collection from the UI.
    await page.getByLabel('New collection name').fill('papers')
    await page.getByLabel('New collection name').press('Enter')
    await page.getByRole('button', { name: /^papers/ }).waitFor()
    await page.getByTestId('empty-state').waitFor()
    await page.screenshot({ path: shot('library-empty') })

    const pdf = path.join(testdata, 'pdf/real/blood_loss_report.pdf')
    const pdf2 = path.join(testdata, 'pdf/real/hsaur3-Ch_analysis_of_variance.pdf')
    await addByPath(page, [pdf, pdf2])

    // Per-document progress rows appear and reach done.
    await page.getByTestId('ingest-row').first().waitFor()
    await page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll('[data-testid="ingest-row"]')]
        return rows.length >= 2 && rows.some((r) => r.dataset.state === 'running' || r.dataset.state === 'done')
      },
      null,
      { timeout: 60000 },
    )
    await page.screenshot({ path: shot('library-progress') })
    await page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll('[data-testid="ingest-row"]')]
        return rows.length >= 2 && rows.every((r) => r.dataset.state === 'done')
      },
      null,
      { timeout: 180000 },
    )
    const lines = await page.getByTestId('ingest-line').allTextContents()
    assert.ok(lines.some((l) => l.includes('Done · 19 pages')), lines.join(' | '))
    assert.ok(lines.some((l) => l.includes('Done · 13 pages')), lines.join(' | '))

    // The grid shows both documents with their first-page thumbnails.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-card"]').length === 2)
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-card"] img.thumb').length === 2, null, {
      timeout: 30000,
    })
    await page.screenshot({ path: shot('library-grid') })

    // Open a document: the page grid is virtualised and shows thumbnails.
    await page.getByTestId('doc-card').filter({ hasText: 'blood_loss_report.pdf' }).click()
    await page.getByTestId('page-grid').waitFor()
    // The virtualiser renders its cells after it has measured the grid: wait for the first one.
    await page.getByTestId('page-cell').first().waitFor()
    const cells = await page.getByTestId('page-cell').count()
    assert.ok(cells > 0 && cells <= 19, `cells ${cells}`)
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="page-cell"] img.thumb').length >= 4, null, {
      timeout: 30000,
    })
    await page.screenshot({ path: shot('library-pages') })

    // The viewer: page navigation and zoom.
    await page.getByTestId('page-cell').nth(1).click()
    const viewer = page.getByTestId('viewer')
    await viewer.waitFor()
    // The viewer lists the document's pages first ("Loading…" until then).
    await page.getByTestId('viewer-page').filter({ hasText: /^Page 2 of 19$/ }).waitFor({ timeout: 10000 })
    await viewer.locator('img').waitFor({ timeout: 30000 })
    await page.getByRole('button', { name: 'Next page' }).click()
    await page.getByTestId('viewer-page').filter({ hasText: /^Page 3 of 19$/ }).waitFor({ timeout: 10000 })
    await page.getByRole('button', { name: 'Zoom in' }).click()
    assert.equal(await page.getByTestId('zoom').textContent(), '125%')
    await viewer.locator('img').waitFor()
    await page.screenshot({ path: shot('viewer') })
    await page.keyboard.press('Escape')
    await viewer.waitFor({ state: 'detached' })

    // Search (Ctrl+K focuses the box): hits with thumbnails and the matched words boxed.
    await page.keyboard.press('Control+k')
    await page.keyboard.type('Factor XIII activity')
    await page.keyboard.press('Enter')
    await page.getByTestId('hit').first().waitFor({ timeout: 30000 })
    const firstHit = await page.getByTestId('hit').first().textContent()
    assert.match(firstHit, /blood_loss_report\.pdf/)
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="hit"] [data-testid="region"]').length > 0)
    await page.screenshot({ path: shot('search') })
    await page.getByTestId('hit').first().click()
    await viewer.waitFor()
    // The viewer highlights the matched words.
    await viewer.getByTestId('region').first().waitFor({ timeout: 10000 })
    await viewer.locator('img').waitFor({ timeout: 30000 })
    await page.screenshot({ path: shot('viewer-search-hit') })
    await page.keyboard.press('Escape')
    await viewer.waitFor({ state: 'detached' })

    // Delete the open document: asked first, then its card goes and its pages are no longer found.
    await page.getByLabel('Search pages').fill('')
    await page.getByLabel('Search pages').press('Enter')
    await page.getByRole('button', { name: 'Delete document…' }).click()
    await page.getByRole('group', { name: 'Delete blood_loss_report.pdf' }).waitFor()
    await page.screenshot({ path: shot('library-delete-confirm') })
    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-card"]').length === 1, null, {
      timeout: 30000,
    })
    assert.match(await page.getByTestId('doc-card').textContent(), /hsaur3-Ch_analysis_of_variance\.pdf/)
    // Its ingest row goes with it.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="ingest-row"]').length === 1)
    assert.doesNotMatch(await page.getByTestId('ingest-row').textContent(), /blood_loss_report/)
    await page.getByLabel('Search pages').fill('Factor XIII activity')
    await page.getByLabel('Search pages').press('Enter')
    await page.getByTestId('search-results').waitFor({ timeout: 30000 })
    const after = await page.getByTestId('search-results').textContent()
    assert.ok(!after.includes('blood_loss_report.pdf'), after)
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})
