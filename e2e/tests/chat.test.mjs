import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { addByPath, openApp, shot, startScriptedModel, testdata } from '../lib.mjs'

// Recorded-shape model turns for the vrag protocol: search, crop, answer.
const vragScript = [
  '<think>I should find the study title.</think>\n<search>Factor XIII activity postpartum blood loss</search>',
  '<think>The title block is at the top of the page; zoom in.</think>\n<bbox>[40, 40, 520, 150]</bbox>',
  '<think>The crop shows the title.</think>\n<answer>The study is about prepartum Factor XIII activity and postpartum blood loss.</answer>',
]

// VimRAG: one search node, memorise the first picture, answer from it.
const call = (name, args) => `<think>plan</think>\n<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`
const vimragScript = [
  call('add_search_node', { id: 'Study topic', parent_ids: ['root'], query: 'Factor XIII postpartum blood loss' }),
  call('summarize_and_memorize', {
    summarize: 'Page 1 names the study: prepartum Factor XIII and postpartum blood loss.',
    memorize: [
      { information_id: 'Picture 1', is_useful: true, key_timestamp: [], priority_score: 5 },
      { information_id: 'Picture 2', is_useful: true, key_timestamp: [], priority_score: 2 },
    ],
  }),
  call('add_answer_node', { parent_ids: ['Study topic'], answer: 'Prepartum Factor XIII activity and postpartum blood loss.' }),
]

test('chat: a vrag run against a scripted model shows step cards, the crop box and a citation that opens the viewer; vimrag draws its graph', async () => {
  const model = await startScriptedModel()
  const { browser, page, errors } = await openApp()
  try {
    // Point the openai profile at the scripted server through the settings binding.
    await page.evaluate(async ({ url, name }) => {
      const Settings = window.go.desktop.SettingsService
      const s = await Settings.Settings()
      for (const p of s.providers) if (p.name === 'openai') Object.assign(p, { base_url: url, chat_model: name, embed_model: '' })
      s.agent.provider = 'openai'
      await Settings.SaveSettings(s)
    }, { url: model.url, name: model.model })

    // A document to ask about (ingested in its own collection).
    await page.getByLabel('New collection name').fill('chat')
    await page.getByLabel('New collection name').press('Enter')
    await page.getByRole('button', { name: /^chat/ }).waitFor()
    await page.getByRole('button', { name: /^chat/ }).click()
    await addByPath(page, [path.join(testdata, 'pdf/real/blood_loss_report.pdf')])
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.dataset.state === 'done' && r.textContent.includes('blood_loss')),
      null,
      { timeout: 120000 },
    )

    // Settings: test connection lists the scripted model.
    await page.getByRole('button', { name: 'Settings', exact: true }).click()
    const openai = page.locator('[data-testid="provider"][data-name="openai"]')
    await openai.getByTestId('test-connection').click()
    await openai.getByTestId('test-result').waitFor()
    assert.match(await openai.getByTestId('test-result').textContent(), /Connected · 1 models/)
    await page.screenshot({ path: shot('settings') })

    // Ask in vrag mode.
    model.setScript(vragScript)
    await page.getByRole('button', { name: 'Chat', exact: true }).click()
    await page.getByLabel('Mode').selectOption('vrag')
    await page.getByLabel('Question').fill('What is the study about?')
    await page.getByRole('button', { name: 'Ask', exact: true }).click()
    await page.getByTestId('usage').waitFor({ timeout: 60000 })

    const search = page.getByTestId('step-search').first()
    assert.match(await search.textContent(), /Factor XIII activity postpartum blood loss/)
    assert.ok((await search.getByTestId('step-hit').count()) > 0)
    const crop = page.getByTestId('step-crop')
    await crop.waitFor()
    assert.match(await crop.textContent(), /blood_loss_report\.pdf p\. \d+/)
    const box = await crop.getByTestId('region').evaluate((el) => ({ w: parseFloat(el.style.width), h: parseFloat(el.style.height) }))
    assert.ok(box.w > 10 && box.w <= 100 && box.h > 0, JSON.stringify(box))
    await crop.locator('.crop-zoom img').waitFor({ timeout: 30000 })
    await crop.locator('.crop-source img').waitFor({ timeout: 30000 })
    assert.match(await page.getByTestId('answer').last().textContent(), /prepartum Factor XIII activity/)
    assert.ok((await page.getByTestId('step-think').count()) >= 2, 'thinking is shown (collapsed)')
    await page.screenshot({ path: shot('chat-vrag') })

    // The citation opens the viewer at the cropped region.
    await page.getByTestId('citation').first().click()
    const viewer = page.getByTestId('viewer')
    await viewer.waitFor()
    await viewer.getByTestId('region').waitFor()
    await viewer.locator('img').waitFor({ timeout: 30000 })
    await page.screenshot({ path: shot('viewer-citation') })
    await page.keyboard.press('Escape')

    // The conversation was stored and is listed.
    await page.locator('.conversations li').first().waitFor()
    assert.match(await page.locator('.conversations').textContent(), /What is the study about\?/)

    // VimRAG in a new chat (Ctrl+N): the memory graph is drawn from the run's graph events.
    model.setScript(vimragScript)
    await page.keyboard.press('Control+n')
    await page.getByLabel('Mode').selectOption('vimrag')
    await page.getByLabel('Question').fill('Which factor does the study examine?')
    await page.keyboard.press('Enter')
    await page.getByTestId('usage').waitFor({ timeout: 60000 })
    await page.getByTestId('step-memorize').waitFor({ timeout: 5000 }).catch(async (e) => {
      await page.screenshot({ path: shot('chat-vimrag-failed') })
      const turn = await page.getByTestId('turn').last().textContent()
      throw new Error(`no memorize card (model calls ${model.requests.length}): ${turn}`, { cause: e })
    })
    assert.match(await page.getByTestId('answer').last().textContent(), /Prepartum Factor XIII activity/)
    await page.screenshot({ path: shot('chat-vimrag') })
    await page.getByRole('button', { name: 'Show memory graph' }).click()
    await page.getByTestId('graph-node').first().waitFor()
    const ids = await page.getByTestId('graph-node').evaluateAll((els) => els.map((e) => e.dataset.nodeId))
    assert.ok(ids.includes('root') && ids.includes('Study topic'), ids.join(','))
    await page.locator('[data-node-id="Study topic"]').click()
    await page.getByTestId('evidence').getByText('Picture 1').first().waitFor()
    await page.waitForTimeout(500)
    await page.screenshot({ path: shot('graph') })
    assert.ok(model.requests.length >= 6, `model calls ${model.requests.length}`)
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
    await model.close()
  }
})
