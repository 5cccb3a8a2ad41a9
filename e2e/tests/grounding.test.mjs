import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot, startScriptedModel, testdata, useModel } from '../lib.mjs'

// Table 1 of blood_loss_report.pdf (page 2) gives the median neonatal weight as 3370.0 g after vaginal delivery and
// 3200.0 g after a planned cesarean; the scripted answer has the first right and the second altered.
const answer = 'The median neonatal weight was 3370.0 g after vaginal delivery and 3250.0 g after a planned cesarean.'

test('grounding: an answer with one true and one altered figure marks both; the true one opens the page with its words highlighted', async () => {
  const model = await startScriptedModel()
  const { browser, page, errors } = await openApp()
  try {
    await useModel(page, model)
    await newCollection(page, 'trust')
    await addByPath(page, [path.join(testdata, 'pdf/real/blood_loss_report.pdf')])
    await ingestRow(page, 'blood_loss_report.pdf').and(page.locator('[data-state="done"]')).waitFor({ timeout: 120000 })

    model.setScript([answer])
    await page.getByRole('button', { name: 'Chat', exact: true }).click()
    await page.getByLabel('Mode').selectOption('vanilla')
    await page.getByLabel('Question').fill('Feto-maternal perinatal characteristics stratified: what was the median neonatal weight?')
    await page.getByRole('button', { name: 'Ask', exact: true }).click()
    const summary = page.getByTestId('grounding').last()
    await summary.waitFor({ timeout: 60000 })

    const claims = page.getByTestId('answer').last().getByTestId('claim')
    const byText = {}
    for (const c of await claims.all()) byText[await c.textContent()] = await c.getAttribute('data-status')
    assert.ok(['region', 'cited_page'].includes(byText['3370.0']), `3370.0 is ${byText['3370.0']}: ${JSON.stringify(byText)}`)
    assert.equal(byText['3250.0'], 'mismatch', JSON.stringify(byText))
    const mismatch = claims.filter({ hasText: '3250.0' })
    assert.match(await mismatch.getAttribute('title'), /3200\.0/, 'the mismatch says what the page has')
    assert.match(await summary.textContent(), /of/)
    await page.screenshot({ path: shot('chat-grounding') })

    await claims.filter({ hasText: '3370.0' }).click()
    const viewer = page.getByTestId('viewer')
    await viewer.waitFor()
    await viewer.getByTestId('region').first().waitFor()
    await viewer.locator('img').first().waitFor({ timeout: 30000 })
    await page.screenshot({ path: shot('viewer-grounding') })
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
    await model.close()
  }
})
