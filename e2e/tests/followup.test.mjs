import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot, startScriptedModel, testdata, useModel } from '../lib.mjs'

test('chat: a follow-up question is understood from the conversation ("Understood as: …") and searches the cited document first', async () => {
  const model = await startScriptedModel()
  const { browser, page, errors } = await openApp()
  try {
    await useModel(page, model)
    await newCollection(page, 'followup')
    await addByPath(page, [path.join(testdata, 'pdf/real/blood_loss_report.pdf')])
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.textContent.includes('blood_loss') && r.dataset.state !== 'running'),
      null,
      { timeout: 120000 },
    )
    assert.equal(await ingestRow(page, 'blood_loss').getAttribute('data-state'), 'done')

    // Turn 1: no rewrite (first question of the conversation).
    model.setScript(['<search>Factor XIII activity postpartum blood loss</search>', '<answer>Prepartum Factor XIII activity.</answer>'])
    await page.getByRole('button', { name: 'Chat', exact: true }).click()
    await page.getByLabel('Mode').selectOption('vrag')
    await page.getByLabel('Question').fill('What does the Factor XIII study measure?')
    await page.getByRole('button', { name: 'Ask', exact: true }).click()
    await page.getByTestId('usage').waitFor({ timeout: 60000 })
    assert.equal(await page.getByTestId('understood-as').count(), 0)
    assert.equal(model.requests.length, 2)

    // Turn 2, same conversation: the first scripted reply answers the rewrite call.
    const standalone = 'How was postpartum blood loss measured in the Factor XIII study?'
    model.setScript([standalone, '<search>blood loss measurement</search>', '<answer>By weighing pads.</answer>'])
    await page.getByLabel('Question').fill('And how was it measured?')
    await page.getByRole('button', { name: 'Ask', exact: true }).click()
    await page.getByTestId('usage').nth(1).waitFor({ timeout: 60000 })
    const turn2 = page.getByTestId('turn').nth(1)
    assert.equal(await turn2.getByTestId('understood-as').textContent(), standalone)
    assert.match(await turn2.getByTestId('prefer').textContent(), /blood_loss_report\.pdf/)
    assert.match(await turn2.getByTestId('answer').textContent(), /By weighing pads/)

    // What the model received: the rewrite request carried turn 1, and the agent got the standalone question.
    const rewriteReq = model.requests[2]
    assert.equal(rewriteReq.messages[0].role, 'system')
    const convText = JSON.stringify(rewriteReq.messages[1].content)
    assert.match(convText, /What does the Factor XIII study measure\?/)
    assert.match(convText, /Prepartum Factor XIII activity\./)
    assert.match(convText, /And how was it measured\?/)
    assert.match(JSON.stringify(model.requests[3].messages), /How was postpartum blood loss measured in the Factor XIII study\?/)
    await page.screenshot({ path: shot('chat-followup') })
    // "Edit" puts the understood question in the box, to be corrected and asked again.
    await turn2.getByTestId('edit-understood').click()
    assert.equal(await page.getByLabel('Question').inputValue(), standalone)
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
    await model.close()
  }
})
