import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { addByPath, ingestRow, newCollection, openApp, shot, shotDir, startScriptedModel, testdata, useModel } from '../lib.mjs'

// Frame and input timings are reported, not asserted (this box is shared and slow); what is asserted is structural:
// the grid keeps a bounded number of cells in the DOM, no scrolled-to frame is blank, and clicks are answered while
// thousands of progress events stream in.

// installRecorder keeps, in the page, requestAnimationFrame deltas, long tasks and the click-to-next-frame latency.
async function installRecorder(page) {
  await page.evaluate(() => {
    const r = { on: false, last: 0, t0: 0, frames: [], slow: [], long: [], clicks: [] }
    const loop = (t) => {
      if (!r.on) return
      if (r.last) r.frames.push(t - r.last)
      if (r.last && t - r.last > 50) r.slow.push([Math.round(r.last - r.t0), Math.round(t - r.last)])
      r.last = t
      requestAnimationFrame(loop)
    }
    new PerformanceObserver((l) => {
      if (r.on) for (const e of l.getEntries()) r.long.push(e.duration), r.slow.push(['task', Math.round(e.startTime - r.t0), Math.round(e.duration)])
    }).observe({ type: 'longtask' })
    // From the click's timestamp to the start of the next frame: the handler ran and React rendered before it.
    document.addEventListener(
      'click',
      (e) => {
        const t0 = e.timeStamp
        requestAnimationFrame(() => r.on && r.clicks.push(performance.now() - t0))
      },
      true,
    )
    window.__rec = {
      start() {
        Object.assign(r, { on: true, last: 0, t0: performance.now(), frames: [], slow: [], long: [], clicks: [] })
        requestAnimationFrame(loop)
      },
      stop() {
        r.on = false
        return { frames: r.frames, long: r.long, clicks: r.clicks, slow: r.slow, ms: performance.now() - r.t0 }
      },
    }
  })
}

function summary(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const q = (p) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0)
  return { n: s.length, p50: +q(0.5).toFixed(1), p95: +q(0.95).toFixed(1), max: +(s.at(-1) ?? 0).toFixed(1), over100: s.filter((x) => x > 100).length }
}

test('scale: a 2,415-page PDF ingests while the UI answers clicks and a question notes the unsearchable pages; its page grid stays virtualised top to bottom', async () => {
  const model = await startScriptedModel()
  const { browser, page, errors } = await openApp()
  const figures = {}
  try {
    await useModel(page, model)
    await newCollection(page, 'scale')
    await installRecorder(page)

    // Ingest the real file, recording frames from the moment it is added.
    const t0 = Date.now()
    await page.evaluate(() => window.__rec.start())
    await addByPath(page, [path.join(testdata, 'pdf/real/R-refman.pdf')])
    const row = ingestRow(page, 'R-refman.pdf')
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.textContent.includes('R-refman') && /\d+\/2415 pages/.test(r.textContent)),
      null,
      { timeout: 60000 },
    )

    // Clicks are answered while progress streams: the "Add by path" disclosure toggles every time.
    const details = page.locator('details.add-path')
    for (let i = 0; i < 8; i++) {
      const before = await details.evaluate((d) => d.open)
      await details.locator('summary').click()
      assert.equal(await details.evaluate((d) => d.open), !before, `click ${i} toggled the disclosure`)
      await page.waitForTimeout(150)
    }
    await page.screenshot({ path: shot('scale-ingest') })

    const phaseClicks = await page.evaluate(() => window.__rec.stop())

    // A question asked now says which pages it could not see.
    await page.evaluate(() => window.__rec.start())
    model.setScript(['<think>The index may be partial.</think>\n<answer>The plot function draws graphs.</answer>'])
    await page.getByRole('button', { name: 'Chat', exact: true }).click()
    const live = page.getByTestId('ingest-notice')
    await live.waitFor({ timeout: 10000 })
    assert.match(await live.textContent(), /R-refman\.pdf: pages \d+–2415 of 2415 not searchable yet/)
    await page.getByLabel('Mode').selectOption('vrag')
    await page.getByLabel('Question').fill('What does plot do?')
    await page.getByRole('button', { name: 'Ask', exact: true }).click()
    const note = page.getByTestId('turn-ingest-notice')
    await note.waitFor({ timeout: 10000 })
    const noteText = await note.textContent()
    assert.match(noteText, /R-refman\.pdf: pages (\d+)–2415 of 2415 not searchable yet/)
    await page.getByTestId('usage').waitFor({ timeout: 60000 })
    assert.match(await page.getByTestId('answer').last().textContent(), /plot function draws graphs/)
    const phaseChat = await page.evaluate(() => window.__rec.stop())
    await page.screenshot({ path: shot('scale-chat-notice') })
    await page.getByRole('button', { name: 'Library', exact: true }).click()
    await page.evaluate(() => window.__rec.start())

    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.textContent.includes('R-refman') && r.dataset.state !== 'running'),
      null,
      { timeout: 150000 },
    )
    const phaseRest = await page.evaluate(() => window.__rec.stop())
    assert.equal(await row.getAttribute('data-state'), 'done', await row.textContent())
    assert.match(await row.getByTestId('ingest-line').textContent(), /Done · 2415 pages/)
    figures.ingest_s = +((Date.now() - t0) / 1000).toFixed(1)
    // Three phases of the ingest: library with clicks, chat with a question, library until done.
    for (const [name, ph] of Object.entries({ library_clicks: phaseClicks, chat_ask: phaseChat, library_rest: phaseRest })) {
      figures[`ingest_${name}_frames_ms`] = summary(ph.frames)
      figures[`ingest_${name}_long_tasks_ms`] = summary(ph.long)
      figures[`ingest_${name}_slow`] = { ms: Math.round(ph.ms), at: ph.slow }
    }
    figures.click_to_next_frame_ms = summary(phaseClicks.clicks)
    figures.notice = noteText

    // The page grid of 2,415 pages, scrolled top to bottom half a screen per frame.
    await page.getByTestId('doc-card').filter({ hasText: 'R-refman.pdf' }).click()
    const grid = page.getByTestId('page-grid')
    await grid.waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="page-cell"]').length > 0)
    assert.match(await page.locator('.crumbs').textContent(), /2415 pages/)
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="page-cell"] img.thumb').length >= 4, null, { timeout: 30000 })
    await page.screenshot({ path: shot('scale-grid-top') })
    const scroll = await page.evaluate(async () => {
      const el = document.querySelector('[data-testid="page-grid"]')
      const view = el.getBoundingClientRect()
      const visible = () =>
        [...el.querySelectorAll('[data-testid="page-cell"]')].filter((c) => {
          const r = c.getBoundingClientRect()
          return r.bottom > view.top && r.top < view.bottom
        }).length
      const frames = []
      let maxCells = 0
      let blank = 0
      let steps = 0
      window.__rec.start()
      let last = performance.now()
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 1 && steps < 5000) {
        el.scrollTop += el.clientHeight / 2
        await new Promise((r) => requestAnimationFrame(r))
        const t = performance.now()
        frames.push(t - last)
        last = t
        steps++
        maxCells = Math.max(maxCells, el.querySelectorAll('[data-testid="page-cell"]').length)
        if (visible() === 0) blank++
      }
      const rec = window.__rec.stop()
      const cells = [...el.querySelectorAll('[data-testid="page-cell"]')].map((c) => c.textContent)
      return { frames, rafFrames: rec.frames, long: rec.long, maxCells, blank, steps, height: el.scrollHeight, client: el.clientHeight, lastCell: cells.at(-1) }
    })
    // Bounded DOM: at most the rows on screen plus the overscan (3 each side) and one partly shown, never 2,415.
    const cols = await page.evaluate(() => document.querySelector('.page-row').children.length)
    const rowsOnScreen = Math.ceil(scroll.client / 210) + 1
    const bound = (rowsOnScreen + 6 + 1) * cols
    assert.ok(scroll.maxCells > 0 && scroll.maxCells <= bound, `max ${scroll.maxCells} cells in the DOM, bound ${bound}`)
    assert.equal(scroll.blank, 0, 'every scrolled-to frame shows page cells')
    assert.match(scroll.lastCell, /Page 2415/)
    // The thumbnails at the bottom load although the scroll asked for hundreds on the way (those are dropped).
    const tThumb = Date.now()
    await page.waitForFunction(
      (cols) => {
        const el = document.querySelector('[data-testid="page-grid"]')
        const view = el.getBoundingClientRect()
        return [...el.querySelectorAll('[data-testid="page-cell"] img.thumb')].filter((c) => {
          const r = c.getBoundingClientRect()
          return r.bottom > view.top && r.top < view.bottom
        }).length >= cols
      },
      cols,
      { timeout: 20000 },
    )
    figures.bottom_thumbs_ms = Date.now() - tThumb
    await page.screenshot({ path: shot('scale-grid-bottom') })
    figures.grid = { cols, max_cells_in_dom: scroll.maxCells, bound, scroll_steps: scroll.steps, scroll_height_px: scroll.height }
    figures.scroll_frames_ms = summary(scroll.frames)
    figures.scroll_long_tasks_ms = summary(scroll.long)
    assert.deepEqual(errors, [])
  } finally {
    console.log('scale figures: ' + JSON.stringify(figures))
    writeFileSync(path.join(shotDir, 'scale.json'), JSON.stringify(figures, null, 2))
    await browser.close()
    await model.close()
  }
})
