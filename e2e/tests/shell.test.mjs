import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { openApp, shot } from '../lib.mjs'

test('the shell calls the bound Go Status method and shows its answer', async () => {
  const { browser, page, errors } = await openApp()
  try {
    // Direct call through the binding: the real Go backend answers.
    const status = await page.evaluate(() => window.go.desktop.LibraryService.Status())
    assert.equal(status.data_dir, process.env.PROOFGLASS_DATA)
    assert.ok(status.collections >= Number(process.env.PROOFGLASS_E2E_COLLECTIONS)) // other tests may add collections
    assert.equal(typeof status.schema_version, 'number')
    assert.ok(status.schema_version >= 1)

    // The UI shows the same answer.
    await page.waitForSelector('[data-testid="collections"]')
    const text = await page.textContent('[data-testid="collections"]')
    assert.match(text, new RegExp(`${status.collections} collections? · ${status.documents} documents?`))

    // The footer names the binary's own version, the one `proofglass version` prints and the package is named after.
    const bin = JSON.parse(execFileSync(path.resolve('../build/bin/proofglass-dev'), ['version', '--json'], { encoding: 'utf8' }))
    assert.equal(status.version, bin.version)
    assert.equal(await page.textContent('[data-testid="version"]'), `Proofglass ${bin.version}`)

    // Navigation works.
    await page.getByRole('button', { name: 'Settings' }).click()
    assert.equal(await page.textContent('main h1'), 'Settings')
    await page.getByRole('button', { name: 'Library' }).click()
    await page.screenshot({ path: shot('shell'), fullPage: true })
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})
