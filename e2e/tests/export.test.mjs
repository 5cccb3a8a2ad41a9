import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import { addByPath, contrastIssues, ingestRow, newCollection, openApp, shot, shotDir, startScriptedModel, testdata, useModel } from '../lib.mjs'

const vragScript = [
  '<think>Find the study.</think>\n<search>Factor XIII activity postpartum blood loss</search>',
  '<think>Zoom into the title.</think>\n<bbox>[40, 40, 520, 150]</bbox>',
  '<answer>The study is about prepartum Factor XIII activity and postpartum blood loss.</answer>',
]

test('export: a conversation to Markdown and to a self-contained HTML report that opens standalone; dark theme screens', async () => {
  const model = await startScriptedModel()
  const { browser, page, errors } = await openApp()
  // The dev build answers the save dialog with PROOFGLASS_E2E_SAVE_DIR/<suggested name> (run.sh); the Go side then
  // writes only that path.
  const saveDir = process.env.PROOFGLASS_E2E_SAVE_DIR ?? shotDir
  const files = { md: '', html: '' }
  try {
    await useModel(page, model)
    await newCollection(page, 'export')
    await addByPath(page, [path.join(testdata, 'pdf/real/blood_loss_report.pdf')])
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.textContent.includes('blood_loss') && r.dataset.state !== 'running'),
      null,
      { timeout: 120000 },
    )
    assert.equal(await ingestRow(page, 'blood_loss').getAttribute('data-state'), 'done')

    model.setScript(vragScript)
    await page.getByRole('button', { name: 'Chat', exact: true }).click()
    await page.getByLabel('Mode').selectOption('vrag')
    await page.getByLabel('Question').fill('What is the study about?')
    await page.getByRole('button', { name: 'Ask', exact: true }).click()
    await page.getByTestId('usage').waitFor({ timeout: 60000 })
    const crop = page.getByTestId('step-crop')
    await crop.locator('.crop-zoom img').waitFor({ timeout: 30000 })
    await crop.locator('.crop-source img').waitFor({ timeout: 30000 })

    await page.getByRole('button', { name: 'Export Markdown' }).click()
    await page.getByTestId('export-msg').filter({ hasText: 'Saved' }).waitFor({ timeout: 30000 })
    files.md = (await page.getByTestId('export-msg').textContent()).replace(/^Saved /, '')
    assert.equal(path.dirname(files.md), saveDir)
    assert.match(files.md, /\.md$/)
    const md = readFileSync(files.md, 'utf8')
    assert.match(md, /^# What is the study about\?/)
    assert.match(md, /- Searched “Factor XIII activity postpartum blood loss” → blood_loss_report\.pdf p\. \d+/)
    assert.match(md, /- Zoomed into blood_loss_report\.pdf p\. \d+, box \[\d+, \d+, \d+, \d+\]/)
    assert.match(md, /\*\*Answer:\*\* The study is about prepartum Factor XIII activity/)
    assert.match(md, /Sources:\n- blood_loss_report\.pdf, page \d+/)

    await page.getByRole('button', { name: 'Export HTML' }).click()
    await page.getByTestId('export-msg').filter({ hasText: '.html' }).waitFor({ timeout: 30000 })
    files.html = (await page.getByTestId('export-msg').textContent()).replace(/^Saved /, '')
    assert.equal(path.dirname(files.html), saveDir)
    const html = readFileSync(files.html, 'utf8')
    const srcs = [...html.matchAll(/<img[^>]* src="([^"]*)"/g)].map((m) => m[1])
    assert.ok(srcs.length >= 2, `page and crop images: ${srcs.length}`)
    for (const s of srcs) assert.match(s, /^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/]{200,}/, s.slice(0, 60))
    assert.doesNotMatch(html, /(src|href)="(https?:|file:|\/)/, 'nothing is linked from outside the file')

    // Standalone: a fresh browser with every network request refused shows the report with its images.
    const alone = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] })
    try {
      const p = await alone.newPage({ viewport: { width: 1000, height: 900 } })
      const fetched = []
      await p.route('**/*', (r) => {
        const u = r.request().url()
        if (u.startsWith('file:') || u.startsWith('data:')) return r.continue()
        fetched.push(u)
        return r.abort()
      })
      await p.goto(pathToFileURL(files.html).href)
      await p.waitForFunction(() => [...document.images].every((i) => i.complete))
      const imgs = await p.evaluate(() => [...document.images].map((i) => ({ alt: i.alt, w: i.naturalWidth, h: i.naturalHeight })))
      assert.ok(imgs.length >= 2 && imgs.every((i) => i.w > 0 && i.h > 0), JSON.stringify(imgs))
      assert.match(await p.locator('h1').textContent(), /What is the study about\?/)
      assert.equal(await p.locator('.box').count(), 1, 'the crop box is drawn on the page')
      assert.deepEqual(fetched, [])
      await p.screenshot({ path: shot('export-html'), fullPage: true })
    } finally {
      await alone.close()
    }

    // Dark theme, following the OS: chat, library and the page grid.
    await page.emulateMedia({ colorScheme: 'dark' })
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)
    assert.equal(bg, 'rgb(21, 22, 26)')
    await page.getByTestId('step-think').first().locator('summary').click()
    const darkChat = await contrastIssues(page)
    await page.screenshot({ path: shot('dark-chat') })
    await page.getByRole('button', { name: 'Library', exact: true }).click()
    await page.getByTestId('doc-card').first().waitFor()
    await page.locator('[data-testid="doc-card"] img.thumb').first().waitFor({ timeout: 30000 })
    const darkLibrary = await contrastIssues(page)
    await page.screenshot({ path: shot('dark-library') })
    await page.emulateMedia({ colorScheme: 'light' })
    await page.getByRole('button', { name: 'Chat', exact: true }).click()
    const lightChat = await contrastIssues(page)
    assert.deepEqual({ darkChat, darkLibrary, lightChat }, { darkChat: [], darkLibrary: [], lightChat: [] })
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
    await model.close()
  }
})
