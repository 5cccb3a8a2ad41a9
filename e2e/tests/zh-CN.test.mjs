import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { openApp, shot, startScriptedModel, testdata, useModel } from '../lib.mjs'

// The window in Simplified Chinese: the library, a document's facets, a vrag chat with a crop and a citation, the memory graph and
// Settings, each captured (build/e2e/zh-CN-*.png) to be checked by eye; then the pseudo-locale over the same views.
const call = (name, args) => `<think>plan</think>\n<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`
const vragScript = [
  '<think>先检索。</think>\n<search>Factor XIII postpartum blood loss</search>',
  '<think>标题在页面顶部。</think>\n<bbox>[40, 40, 520, 150]</bbox>',
  '<think>裁剪图显示了标题。</think>\n<answer>这项研究关注产前 XIII 因子活性与产后失血。</answer>',
]
const vimragScript = [
  call('add_search_node', { id: 'Study topic', parent_ids: ['root'], query: 'Factor XIII postpartum blood loss' }),
  call('summarize_and_memorize', {
    summarize: '第 1 页给出了研究主题。',
    memorize: [{ information_id: 'Picture 1', is_useful: true, key_timestamp: [], priority_score: 5 }],
  }),
  call('add_answer_node', { parent_ids: ['Study topic'], answer: '产前 XIII 因子活性与产后失血。' }),
]

test('zh-CN: library, chat with a crop and a citation, memory graph and Settings in Chinese', async () => {
  const model = await startScriptedModel()
  const { browser, page, errors } = await openApp({ language: 'zh-CN' })
  try {
    await useModel(page, model)
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN')
    assert.equal(await page.textContent('main h1'), '文档库')

    await page.getByLabel('新文档集名称').fill('中文')
    await page.getByLabel('新文档集名称').press('Enter')
    await page.getByRole('button', { name: /^中文/ }).click()
    const details = page.locator('details.add-path')
    await details.locator('summary').click()
    await page.getByLabel('要添加的路径，每行一个').fill(path.join(testdata, 'pdf/real/blood_loss_report.pdf'))
    await details.getByRole('button', { name: '添加' }).click()
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid="ingest-row"]')].some((r) => r.dataset.state === 'done'),
      null,
      { timeout: 120000 },
    )
    assert.match(await page.getByTestId('ingest-line').first().textContent(), /完成 · \d+ 页/)
    await page.getByTestId('doc-card').first().waitFor()
    await page.waitForTimeout(1500) // covers
    await page.screenshot({ path: shot('zh-CN-library') })

    // The document's facets panel: labels and actions in Chinese, the extracted values as found.
    await page.getByTestId('doc-card').first().click()
    const facets = page.getByTestId('facets')
    await facets.waitFor({ timeout: 30000 })
    const facetText = await facets.textContent()
    assert.match(facetText, /类型\s*report/, facetText)
    assert.match(facetText, /年份\s*2022/, facetText)
    await facets.getByRole('button', { name: '编辑机构' }).waitFor()
    // Each facet's edit button is one line: a squeezed one wraps its two characters onto two lines.
    const heights = await facets.locator('dd button').evaluateAll((bs) => bs.map((b) => Math.round(b.getBoundingClientRect().height)))
    assert.equal(new Set(heights).size, 1, `edit buttons of different heights: ${heights}`)
    await page.screenshot({ path: shot('zh-CN-facets') })
    await page.getByRole('button', { name: '文档库', exact: true }).click()

    await page.getByRole('button', { name: '问答', exact: true }).click()
    await page.getByLabel('模式').selectOption('vrag')
    model.setScript(vragScript)
    await page.getByLabel('问题').fill('这项研究是关于什么的？')
    await page.getByRole('button', { name: '提问', exact: true }).click()
    await page.getByTestId('usage').waitFor({ timeout: 60000 })
    assert.match(await page.getByTestId('usage').textContent(), /调用模型 \d+ 次/)
    const crop = page.getByTestId('step-crop')
    await crop.locator('.crop-zoom img').waitFor({ timeout: 30000 })
    await crop.locator('.crop-source img').waitFor({ timeout: 30000 })
    assert.match(await crop.textContent(), /放大查看 blood_loss_report\.pdf 第 \d+ 页/)
    await page.getByTestId('citation').first().waitFor()
    // The grounding line under the answer is Chinese too (composed in the window from the pass's counts).
    const groundingLine = await page.getByTestId('grounding').last().textContent()
    assert.match(groundingLine, /[\u4e00-\u9fff]/, groundingLine)
    assert.doesNotMatch(groundingLine, /[A-Za-z]{3,}/, groundingLine)
    await page.screenshot({ path: shot('zh-CN-chat') })

    await page.keyboard.press('Control+n')
    await page.getByLabel('模式').selectOption('vimrag')
    model.setScript(vimragScript)
    await page.getByLabel('问题').fill('研究考察的是哪个因子？')
    await page.keyboard.press('Enter')
    await page.getByTestId('usage').waitFor({ timeout: 60000 })
    await page.getByRole('button', { name: '查看记忆图' }).click()
    await page.locator('[data-node-id="Study topic"]').click()
    await page.getByTestId('evidence').getByText('Picture 1').first().waitFor()
    await page.waitForTimeout(500)
    await page.screenshot({ path: shot('zh-CN-graph') })

    // A model server that is not there: the connection test says why in Chinese, the backend's English on hover.
    await page.evaluate(async () => {
      const Settings = window.go.desktop.SettingsService
      const s = await Settings.Settings()
      s.providers = s.providers.filter((p) => p.name !== 'down')
      s.providers.push({ name: 'down', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', chat_model: '', embed_model: '', sampling: {} })
      await Settings.SaveSettings(s)
    })
    await page.getByRole('button', { name: '设置', exact: true }).click()
    await page.getByTestId('settings').waitFor()
    assert.equal(await page.locator('#language').inputValue(), 'zh-CN')
    await page.screenshot({ path: shot('zh-CN-settings') })
    const down = page.locator('[data-testid="provider"][data-name="down"]')
    await down.getByTestId('test-connection').click()
    const result = down.getByTestId('test-result')
    await result.getByText('模型服务器在其地址上没有响应', { exact: false }).waitFor({ timeout: 30000 })
    assert.match(await result.locator('[title]').getAttribute('title'), /connection refused/)
    await down.scrollIntoViewIfNeeded()
    await page.screenshot({ path: shot('zh-CN-settings-unreachable') })
    await page.locator('#language').scrollIntoViewIfNeeded()
    await page.screenshot({ path: shot('zh-CN-settings-language') })
    // Switching back to English applies at once.
    await page.locator('#language').selectOption('en')
    assert.equal(await page.textContent('main h1'), 'Settings')
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
    await model.close()
  }
})

test('pseudo-locale: the main views show only catalogue text, none of it clipped', async () => {
  const { browser, page, errors } = await openApp({ language: 'pseudo' })
  try {
    const clipped = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('button, label, h1, h2, h3, summary, th')]
          .filter((el) => el.offsetParent !== null && !el.closest('.ellipsis, .react-flow') && !el.querySelector('.ellipsis'))
          .filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
          .map((el) => el.textContent.trim()),
      )
    for (const [view, name] of [['library', 'Ĺîƀŕàŕý'], ['chat', 'Çĥàţ'], ['settings', 'Šéţţîñĝš'], ['graph', 'Ṁéɱöŕý ĝŕàþĥ']]) {
      await page.locator('nav.sidebar button', { hasText: name }).click()
      await page.waitForTimeout(300)
      await page.screenshot({ path: shot(`pseudo-${view}`), fullPage: true })
      assert.deepEqual(await clipped(), [], `clipped text in ${view}`)
    }
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})
