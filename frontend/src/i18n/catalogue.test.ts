/// <reference types="vite/client" />
// The catalogues agree: every key is in every language (plural forms aside: each language has its own), with the
// same placeholders and markup; every key the code names literally exists.
import ts from 'typescript'
import { resources } from '.'

type Tree = { [k: string]: string | Tree }
const pluralSuffix = /_(zero|one|two|few|many|other)$/

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>()
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k
    if (typeof v === 'string') out.set(key, v)
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv)
  }
  return out
}

/** byBase folds plural forms into their base key: the placeholders and tags of all its forms. */
function byBase(flat: Map<string, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const [k, v] of flat) {
    const base = k.replace(pluralSuffix, '')
    const marks = out.get(base) ?? new Set<string>()
    for (const m of v.matchAll(/\{\{\s*(\w+)[^}]*\}\}|<\/?(\w+)\s*\/?>/g)) marks.add(m[1] ? `{{${m[1]}}}` : `<${m[2]}>`)
    out.set(base, marks)
  }
  return out
}

const en = byBase(flatten(resources.en.translation))
const zh = byBase(flatten(resources['zh-CN'].translation))

describe('catalogues', () => {
  it('have the same keys in every language', () => {
    const missingInZh = [...en.keys()].filter((k) => !zh.has(k))
    const missingInEn = [...zh.keys()].filter((k) => !en.has(k))
    expect({ missingInZh, missingInEn }).toEqual({ missingInZh: [], missingInEn: [] })
  })

  it('have the same placeholders and tags in every language', () => {
    const differ = [...en.keys()]
      .filter((k) => zh.has(k))
      .filter((k) => [...(en.get(k) ?? [])].sort().join() !== [...(zh.get(k) ?? [])].sort().join())
    expect(differ).toEqual([])
  })

  it('give every plural key the forms its language needs', () => {
    const flatEn = flatten(resources.en.translation)
    const flatZh = flatten(resources['zh-CN'].translation)
    const plurals = [...flatEn.keys()].filter((k) => k.endsWith('_other')).map((k) => k.replace(pluralSuffix, ''))
    for (const base of plurals) {
      expect(flatEn.has(`${base}_one`), `${base}_one`).toBe(true)
      expect(flatZh.has(`${base}_other`), `zh-CN ${base}_other`).toBe(true)
    }
  })

  const sources = import.meta.glob(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}', '!../lib/generated/**'], {
    query: '?raw',
    import: 'default',
    eager: true,
  }) as Record<string, string>

  it('have every key the code names', () => {
    const translators = new Set(['t', 'tr', 'translate'])
    const missing: string[] = []
    for (const [file, text] of Object.entries(sources)) {
      const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX)
      const visit = (n: ts.Node) => {
        if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && translators.has(n.expression.text)) {
          const a = n.arguments[0]
          if (a && ts.isStringLiteral(a) && !en.has(a.text)) missing.push(`${file}: ${a.text}`)
        }
        if (ts.isJsxAttribute(n) && n.name.getText(sf) === 'i18nKey' && n.initializer && ts.isStringLiteral(n.initializer)) {
          if (!en.has(n.initializer.text)) missing.push(`${file}: ${n.initializer.text}`)
        }
        ts.forEachChild(n, visit)
      }
      visit(sf)
    }
    expect(missing).toEqual([])
  })
})
