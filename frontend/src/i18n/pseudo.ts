// The pseudo-locale: English with every letter accented and each message 40 % longer, bracketed, so a screen shows
// at a glance text that bypasses the catalogue (plain ASCII), text that is clipped (a missing bracket) and layouts
// that do not grow with longer languages. Chosen by setting localStorage 'proofglass.language' to 'pseudo'.

const accents: Record<string, string> = {
  a: 'à', b: 'ƀ', c: 'ç', d: 'ď', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'î', j: 'ĵ', k: 'ķ', l: 'ĺ', m: 'ɱ',
  n: 'ñ', o: 'ö', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'ü', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'Å', B: 'Ɓ', C: 'Ç', D: 'Ď', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Î', J: 'Ĵ', K: 'Ķ', L: 'Ĺ', M: 'Ṁ',
  N: 'Ñ', O: 'Ö', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Ü', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
}

/** pseudoText accents a message and pads it to 140 % of its length, leaving {{placeholders}} and <tags> alone. */
export function pseudoText(s: string): string {
  const parts = s.split(/(\{\{[^}]*\}\}|<\/?\w+\s*\/?>)/)
  const text = parts.map((p, i) => (i % 2 === 1 ? p : [...p].map((c) => accents[c] ?? c).join(''))).join('')
  const visible = parts.filter((_, i) => i % 2 === 0).join('').length
  const pad = Math.ceil(visible * 0.4)
  if (pad <= 0) return text
  // Padding in short runs, so a long message still wraps where a real translation would.
  const tildes = '~'.repeat(Math.max(1, pad - 3))
  return `[${text} ${tildes.replace(/(~{5})(?=~)/g, '$1 ')}]`
}

type Tree = { [k: string]: string | Tree }

/** pseudoTree turns a whole catalogue into the pseudo-locale. */
export function pseudoTree(t: Tree): Tree {
  const out: Tree = {}
  for (const [k, v] of Object.entries(t)) out[k] = typeof v === 'string' ? pseudoText(v) : pseudoTree(v)
  return out
}
