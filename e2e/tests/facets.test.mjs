import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot, testdata } from '../lib.mjs'

test('facets: a document shows what it is, the user corrects it, and the library filters by it', async () => {
  const { browser, page, errors } = await openApp()
  try {
    await newCollection(page, 'facets')
    await addByPath(page, [path.join(testdata, 'pdf/real/blood_loss_report.pdf'), path.join(testdata, 'pdf/real/hsaur3-Ch_analysis_of_variance.pdf')])
    for (const name of ['blood_loss_report.pdf', 'hsaur3-Ch_analysis_of_variance.pdf']) {
      await page.waitForFunction(
        (n) => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.textContent.includes(n) && r.dataset.state === 'done'),
        name,
        { timeout: 180000 },
      )
    }
    await ingestRow(page, 'blood_loss_report.pdf').waitFor()

    // The document page shows the facets extracted at ingest: the report's kind and year from its own pages.
    await page.getByTestId('doc-card').filter({ hasText: 'blood_loss_report.pdf' }).click()
    const facets = page.getByTestId('facets')
    await facets.waitFor({ timeout: 30000 })
    const text = await facets.textContent()
    assert.match(text, /Kind\s*report/, text)
    assert.match(text, /Year\s*2022/, text)

    // The user names the organisation; the edit is marked and kept.
    await page.getByRole('button', { name: 'Edit Organisation' }).click()
    await page.getByLabel('New Organisation').fill('Medical University of Vienna')
    await page.screenshot({ path: shot('facets-editing') })
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await facets.getByText('Medical University of Vienna').waitFor()
    assert.match(await facets.textContent(), /edited/)
    await page.screenshot({ path: shot('facets-document') })

    // Back in the library, the collection's facets are chips: the edited organisation filters the documents to its
    // own and becomes the facet filter; chosen again, it clears.
    await page.getByRole('button', { name: 'Library', exact: true }).click()
    await page.locator('.crumbs').getByRole('button', { name: 'facets', exact: true }).click()
    const chip = page.getByTestId('facet-browser').getByRole('button', { name: 'Medical University of Vienna (1)' })
    await chip.click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-card"]').length === 1)
    assert.match(await page.getByTestId('doc-card').first().textContent(), /blood_loss_report\.pdf/)
    assert.equal(await page.getByRole('search').getByLabel('Filter by facets').inputValue(), 'org=Medical University of Vienna')
    assert.equal(await chip.getAttribute('aria-pressed'), 'true')
    await page.getByTestId('facet-browser').getByRole('button', { name: /^2022 \(\d\)$/ }).waitFor()
    await page.screenshot({ path: shot('facets-browse') })
    await chip.click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-card"]').length === 2)

    // A filter by the edited organisation keeps that document's pages only.
    await page.getByRole('search').getByLabel('Filter by facets').fill('org=medical university of vienna')
    await page.getByLabel('Search pages').fill('analysis')
    await page.getByLabel('Search pages').press('Enter')
    await page.getByTestId('hit').first().waitFor({ timeout: 30000 })
    const hits = await page.getByTestId('hit').allTextContents()
    assert.ok(hits.length > 0 && hits.every((h) => h.includes('blood_loss_report.pdf')), hits.join(' | '))
    await page.screenshot({ path: shot('facets-filter') })

    // A filter the library cannot read says why.
    await page.getByRole('search').getByLabel('Filter by facets').fill('colour=red')
    await page.getByLabel('Search pages').press('Enter')
    await page.getByRole('alert').filter({ hasText: 'colour=red' }).waitFor({ timeout: 30000 })
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})
