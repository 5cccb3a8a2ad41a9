import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot, shotDir, startScriptedModel, testdata } from '../lib.mjs'

// The Compare view: two real PDFs asked the same two items, one vrag run per cell (search, then answer), one at a
// time so the scripted model's replies go to the cells in order; the table fills in with answers, their cited pages
// (one opens the viewer) and grounding marks, is saved as CSV through the save dialog, and is shown again in Chinese.
const docs = ['blood_loss_report.pdf', 'hsaur3-Ch_analysis_of_variance.pdf']
const cellScript = (query, answer) => [`<think>Find it.</think>\n<search>${query}</search>`, `<think>Shown.</think>\n<answer>${answer}</answer>`]
const script = [
  ...cellScript('median neonatal weight vaginal delivery', 'The median neonatal weight was 3370.0 g after vaginal delivery.'),
  ...cellScript('median neonatal weight', 'This chapter reports no neonatal weight.'),
  ...cellScript('analysis of variance', 'The study does not use an analysis of variance.'),
  ...cellScript('analysis of variance', 'It fits an analysis of variance model.'),
]

test('compare: two documents × two items fill a table with answers, cited pages and grounding marks, saved as CSV, in English and Chinese', async () => {
  const model = await startScriptedModel()
  try {
    await compareBoth(model)
  } finally {
    await model.close()
  }
})

async function compareBoth(model) {
  const { browser, page, errors } = await openApp()
  try {
    await page.evaluate(async ({ url, name }) => {
      const Settings = window.go.desktop.SettingsService
      const s = await Settings.Settings()
      for (const p of s.providers) if (p.name === 'openai') Object.assign(p, { base_url: url, chat_model: name, embed_model: '' })
      s.agent.provider = 'openai'
      s.agent.mode = 'vrag'
      await Settings.SaveSettings(s)
    }, { url: model.url, name: model.model })
    await newCollection(page, 'compare')
    await addByPath(page, docs.map((d) => path.join(testdata, 'pdf/real', d)))
    for (const d of docs) await ingestRow(page, d).and(page.locator('[data-state="done"]')).waitFor({ timeout: 120000 })

    model.setScript(script)
    await page.getByRole('button', { name: 'Compare', exact: true }).click()
    await page.getByLabel('Items to ask (one per line)').fill('What was the median neonatal weight?\nIs an analysis of variance used?')
    for (const d of docs) await page.getByLabel(d).check()
    await page.getByLabel('Runs at once').fill('1')
    await page.locator('.compare-form').getByRole('button', { name: 'Compare', exact: true }).click()
    try {
      await page.getByRole('status').filter({ hasText: '4/4 cells ended' }).waitFor({ timeout: 90000 })
    } catch (e) {
      await page.screenshot({ path: shot('compare-failed'), fullPage: true })
      throw new Error(`${e.message}\nview: ${await page.locator('.compare').textContent()}\nmodel calls: ${model.requests.length}`)
    }

    const table = page.getByTestId('compare-table')
    assert.deepEqual(await table.locator('thead th').allTextContents(), ['Item', ...docs])
    assert.equal(await table.locator('tbody tr').count(), 2)
    assert.equal(await table.locator('td[data-state="done"]').count(), 4)
    const cells = await table.locator('tbody td').allTextContents()
    assert.match(cells[0], /3370\.0 g/)
    assert.match(cells[0], /blood_loss_report\.pdf p\. \d+/)
    assert.match(cells[1], /hsaur3-Ch_analysis_of_variance\.pdf p\. \d+/)
    assert.doesNotMatch(cells[1], /blood_loss_report/, 'a cell cites only its own document')
    assert.equal(await table.getByTestId('mark').count(), 4)
    await page.screenshot({ path: shot('compare-en'), fullPage: true })

    await table.locator('tbody td').first().getByRole('button', { name: /blood_loss_report\.pdf p\./ }).first().click()
    const viewer = page.getByTestId('viewer')
    await viewer.waitFor()
    await viewer.locator('img').first().waitFor({ timeout: 30000 })
    await page.keyboard.press('Escape')

    await page.getByRole('button', { name: 'Save as CSV' }).click()
    const saved = await page.getByText(/^Saved to /).textContent()
    const file = saved.replace(/^Saved to /, '')
    assert.equal(path.dirname(file), process.env.PROOFGLASS_E2E_SAVE_DIR ?? shotDir)
    assert.ok(existsSync(file), file)
    const csv = readFileSync(file, 'utf8')
    assert.match(csv, /^item,blood_loss_report\.pdf,/)
    assert.match(csv, /3370\.0 g/)
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }

  // The same table in Chinese: the backend keeps the last comparison for the view.
  const zh = await openApp({ language: 'zh-CN' })
  try {
    await zh.page.getByRole('button', { name: '对比', exact: true }).click()
    const table = zh.page.getByTestId('compare-table')
    await table.waitFor()
    assert.deepEqual(await table.locator('thead th').allTextContents(), ['条目', ...docs])
    assert.match(await table.locator('tbody td').first().textContent(), /第 \d+ 页/)
    await zh.page.getByRole('button', { name: '保存为 CSV' }).waitFor()
    await zh.page.screenshot({ path: shot('compare-zh-CN'), fullPage: true })
    assert.deepEqual(zh.errors, [])
  } finally {
    await zh.browser.close()
  }
}
