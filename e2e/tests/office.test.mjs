import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot, startScriptedModel, useModel } from '../lib.mjs'

// Office files in the window: a Word document, an Excel workbook and a PowerPoint deck are added as a person adds
// files, become documents with pages, and an answer's citation of each opens its page in the viewer. The files are
// the project's own (backend/ingest/testdata/formats, made by make.py); each holds a word no other file has.
const formats = path.resolve('../backend/ingest/testdata/formats')
const files = [
  { name: 'report.docx', word: 'wombatdocx' },
  { name: 'workbook.xlsx', word: 'wombatxlsx' },
  { name: 'slides.pptx', word: 'wombatpptx' },
]

test('office files: a DOCX, an XLSX and a PPTX are ingested, and a citation of each opens its page', async () => {
  const model = await startScriptedModel()
  const { browser, page, errors } = await openApp()
  try {
    await useModel(page, model)
    await newCollection(page, 'office')
    await addByPath(page, files.map((f) => path.join(formats, f.name)))
    for (const f of files) await ingestRow(page, f.name).and(page.locator('[data-state="done"]')).waitFor({ timeout: 120000 })
    await page.screenshot({ path: shot('library-office') })

    for (const f of files) {
      const hits = await page.evaluate((q) => window.go.desktop.LibraryService.Search(q, 'office', 3), f.word)
      assert.equal(hits.hits[0]?.doc, f.name, `${f.word} finds ${f.name}: ${JSON.stringify(hits.hits.map((h) => h.doc))}`)
      model.setScript([
        `<think>Find the ${f.name} page.</think>\n<search>${f.word}</search>`,
        '<think>The text is near the top; zoom in.</think>\n<bbox>[20, 20, 500, 300]</bbox>',
        `<think>Found it.</think>\n<answer>The document says ${f.word}.</answer>`,
      ])
      await page.getByRole('button', { name: 'Chat', exact: true }).click()
      await page.keyboard.press('Control+n')
      await page.getByLabel('Mode').selectOption('vrag')
      await page.getByLabel('Question').fill(`What does ${f.name} say?`)
      await page.getByRole('button', { name: 'Ask', exact: true }).click()
      await page.getByTestId('usage').last().waitFor({ timeout: 60000 })
      const crop = page.getByTestId('step-crop').last()
      await crop.waitFor()
      assert.match(await crop.textContent(), new RegExp(`${f.name.replace('.', '\\.')} p\\. \\d+`))
      await page.getByTestId('citation').last().click()
      const viewer = page.getByTestId('viewer')
      await viewer.waitFor()
      await viewer.locator('img').waitFor({ timeout: 30000 })
      const size = await viewer.locator('img').first().evaluate((img) => ({ w: img.naturalWidth, h: img.naturalHeight }))
      assert.ok(size.w > 100 && size.h > 100, `${f.name}'s page renders: ${JSON.stringify(size)}`)
      await page.screenshot({ path: shot(`viewer-${f.name.replace('.', '-')}`) })
      if (f.name === 'workbook.xlsx') {
        // The sheet's table, outlined on the page and saved as CSV with the workbook's own cells.
        const tools = viewer.getByTestId('table-tools')
        await tools.waitFor()
        await viewer.getByTestId('table-region').waitFor()
        await tools.getByLabel('Table on this page').selectOption({ label: 'Stock (2×2)' })
        await tools.getByRole('button', { name: 'Save as CSV' }).click()
        const status = tools.getByRole('status')
        await status.waitFor()
        const note = await status.textContent()
        const saved = note.replace(/^Saved to /, '')
        assert.ok(saved.endsWith('workbook-p1-table1.csv'), note)
        assert.equal(fs.readFileSync(saved, 'utf8'), 'Item,Count\nwombatxlsx,14\nbolts,250\n')
        await page.screenshot({ path: shot('viewer-table-tools') })
      }
      await page.keyboard.press('Escape')
      await viewer.waitFor({ state: 'hidden' })
    }
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
    await model.close()
  }
})
