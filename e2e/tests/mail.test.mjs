import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot } from '../lib.mjs'

// An e-mail in the window: added as a person adds files, it becomes the message and its two attachments; the
// message's page shows its headers and its facets its sender; each document names the others and opens them; the
// message's "At a glance" outline opens on request.
const formats = path.resolve('../backend/ingest/testdata/formats')

test('e-mail: a message and its attachments are documents that name and open each other', async () => {
  const { browser, page, errors } = await openApp()
  try {
    await newCollection(page, 'mail')
    await addByPath(page, [path.join(formats, 'message.eml')])
    for (const name of ['message.eml', 'review.docx', 'prices.csv']) {
      await ingestRow(page, name).and(page.locator('[data-state="done"]')).waitFor({ timeout: 120000 })
    }
    await page.getByTestId('doc-card').filter({ hasText: 'message.eml' }).click()
    const facets = page.getByTestId('facets')
    await facets.waitFor({ timeout: 30000 })
    const text = await facets.textContent()
    assert.match(text, /From\s*Ana Ruiz <ana@example\.org>/, text)
    assert.match(text, /Title\s*Q3 figures for the board/, text)
    const links = page.getByRole('region', { name: 'Linked documents' })
    await links.waitFor()
    assert.match(await links.textContent(), /Attachments\s*prices\.csv\s*review\.docx/)
    await page.locator('.glance summary').click()
    await page.getByTestId('glance').getByText('Q3 figures for the board').first().waitFor()
    await page.screenshot({ path: shot('mail-message') })

    await links.getByRole('button', { name: 'review.docx' }).click()
    await page.locator('.crumbs').getByText('review.docx').waitFor()
    const back = page.getByRole('region', { name: 'Linked documents' })
    assert.match(await back.textContent(), /Attached to\s*message\.eml/)
    await page.screenshot({ path: shot('mail-attachment') })
    await back.getByRole('button', { name: 'message.eml' }).click()
    await page.locator('.crumbs').getByText('message.eml').waitFor()
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})
