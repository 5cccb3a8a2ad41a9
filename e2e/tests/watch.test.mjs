import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openApp, shot, testdata } from '../lib.mjs'

// The dev binary's CLI records a watched folder in the app's data dir; the running app picks it up (it re-reads the
// list every 30 s), ingests the folder's file, shows the folder's live status, and drops the document when the
// file is deleted.
test('watched folders: the library panel shows a folder watched by the running app and follows the folder', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'proofglass-e2e-watch-'))
  copyFileSync(path.join(testdata, 'pdf/real/hsaur3-Ch_analysis_of_variance.pdf'), path.join(dir, 'anova.pdf'))
  execFileSync(path.resolve('../build/bin/proofglass-dev'), ['watch', 'add', dir, '--collection', 'watched'], { env: process.env })
  const { browser, page, errors } = await openApp()
  try {
    await page.getByRole('button', { name: /^watched/ }).click()
    const panel = page.getByRole('region', { name: 'Watched folders' })
    await panel.getByText(dir).waitFor()
    await page.waitForFunction(
      (d) => {
        const li = [...document.querySelectorAll('.watched-folder')].find((e) => e.textContent.includes(d))
        return li && li.textContent.includes('watching') && li.textContent.includes('1 document')
      },
      dir,
      { timeout: 90000 },
    )
    await page.screenshot({ path: shot('watch'), fullPage: true })
    const docs = await page.evaluate(async () => {
      const cs = await window.go.desktop.LibraryService.Collections()
      return window.go.desktop.LibraryService.Documents(cs.find((c) => c.name === 'watched').id)
    })
    assert.deepEqual(docs.map((d) => [d.name, d.status]), [['anova.pdf', 'ready']])

    rmSync(path.join(dir, 'anova.pdf'))
    await page.waitForFunction(
      (d) => [...document.querySelectorAll('.watched-folder')].some((e) => e.textContent.includes(d) && e.textContent.includes('0 documents')),
      dir,
      { timeout: 30000 },
    )
    const after = await page.evaluate(async () => {
      const cs = await window.go.desktop.LibraryService.Collections()
      return window.go.desktop.LibraryService.Documents(cs.find((c) => c.name === 'watched').id)
    })
    const li = await page.locator('.watched-folder').first().textContent()
    assert.equal((after ?? []).length, 0, `documents ${JSON.stringify((after ?? []).map((d) => [d.id, d.name, d.status]))} while the panel says: ${li}`)
    await panel.getByRole('button', { name: `Stop watching ${dir}` }).click()
    await panel.getByText(dir).waitFor({ state: 'detached' })
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
