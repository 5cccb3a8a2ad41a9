/// <reference types="vite/client" />
// Fails when a component shows text that is not in the catalogue: JSX text with letters, a string literal (or the
// fixed part of a template) in a user-visible attribute, or one among a JSX element's children. Text passed to a
// call (t('key'), join(', ')) and strings compared with === are not shown, so they pass.
import ts from 'typescript'

const sources = import.meta.glob(['../**/*.tsx', '!../**/*.test.tsx'], { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>

/** Shown as they are in every language: the brand, a key's name, example values (a file name, a model name). */
const allowed = new Set(['Proofglass', 'Esc', 'questions.jsonl', 'qwen2.5vl:7b'])
const visibleAttributes = new Set(['title', 'placeholder', 'aria-label', 'alt', 'label', 'aria-description', 'aria-valuetext'])
const hasLetter = (s: string) => /\p{L}/u.test(s) && !allowed.has(s.trim())

function insideCall(node: ts.Node, stop: ts.Node): boolean {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isCallExpression(n) && n.arguments.some((a) => a.pos <= node.pos && node.end <= a.end)) return true
    if (n === stop) break
  }
  return false
}

function compared(node: ts.Node): boolean {
  const p = node.parent
  if (!p) return false
  if (ts.isBinaryExpression(p)) {
    const k = p.operatorToken.kind
    return k === ts.SyntaxKind.EqualsEqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsEqualsToken
  }
  return ts.isCaseClause(p) || ts.isElementAccessExpression(p)
}

/** shownStrings lists the literal text of an expression that reaches the screen. */
function shownStrings(expr: ts.Node): string[] {
  const out: string[] = []
  const visit = (n: ts.Node) => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && !insideCall(n, expr) && !compared(n)) {
      out.push(n.text)
    } else if (ts.isTemplateExpression(n) && !insideCall(n, expr)) {
      out.push([n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' '))
    } else if (ts.isJsxElement(n) || ts.isJsxSelfClosingElement(n) || ts.isJsxFragment(n) || ts.isArrowFunction(n)) {
      return // checked on their own
    }
    ts.forEachChild(n, visit)
  }
  visit(expr)
  return out
}

export function literalsIn(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX)
  const found: string[] = []
  const where = (n: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n) && hasLetter(n.text)) found.push(`${where(n)} text ${JSON.stringify(n.text.trim())}`)
    if (ts.isJsxAttribute(n) && visibleAttributes.has(n.name.getText(sf)) && n.initializer) {
      const init = n.initializer
      const texts = ts.isStringLiteral(init) ? [init.text] : ts.isJsxExpression(init) && init.expression ? shownStrings(init.expression) : []
      for (const s of texts.filter(hasLetter)) found.push(`${where(n)} ${n.name.getText(sf)}=${JSON.stringify(s)}`)
    }
    if (ts.isJsxExpression(n) && n.expression && (ts.isJsxElement(n.parent) || ts.isJsxFragment(n.parent))) {
      for (const s of shownStrings(n.expression).filter(hasLetter)) found.push(`${where(n)} child ${JSON.stringify(s)}`)
    }
    ts.forEachChild(n, visit)
  }
  visit(sf)
  return found
}

describe('user-visible text comes from the catalogue', () => {
  it('finds the components', () => expect(Object.keys(sources).length).toBeGreaterThan(15))

  it('has no literal text in components', () => {
    const found = Object.entries(sources).flatMap(([file, text]) => literalsIn(file, text))
    expect(found).toEqual([])
  })

  it('catches what it is for', () => {
    const bad = `export const A = () => <div title="Open it" aria-label={\`Page \${n}\`}>Hello {x ? 'Failed' : y}<img alt={t('k')} /></div>`
    expect(literalsIn('a.tsx', bad)).toEqual([
      'a.tsx:1 title="Open it"',
      'a.tsx:1 aria-label="Page  "',
      'a.tsx:1 text "Hello"',
      'a.tsx:1 child "Failed"',
    ])
    const good = `export const B = () => <p title={t('x', { n: 'a b' })}>{t('y')} · {n === 'video' ? '×' : ''}<b>Proofglass</b></p>`
    expect(literalsIn('b.tsx', good)).toEqual([])
  })
})
