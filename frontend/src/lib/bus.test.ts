/// <reference types="vite/client" />
import { EventAgent, EventOpenFiles, eventNames } from './bus'

// Every source file of the frontend (tests left out), as text.
const sources = import.meta.glob(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>

describe('event names', () => {
  it('are generated from Go, one of each', () => {
    expect(eventNames).toContain(EventAgent)
    expect(eventNames).toContain(EventOpenFiles)
    expect(new Set(eventNames).size).toBe(eventNames.length)
  })

  it('every event the frontend subscribes to by a literal name is one Go sends', () => {
    const known = new Set<string>(eventNames)
    const unknown: string[] = []
    let files = 0
    for (const [file, text] of Object.entries(sources)) {
      files++
      for (const m of text.matchAll(/EventsOn(?:ce|Multiple)?\(\s*['"`]([^'"`]+)['"`]/g)) {
        if (!known.has(m[1])) unknown.push(`${file}: ${m[1]}`)
      }
    }
    expect(files).toBeGreaterThan(10)
    expect(unknown).toEqual([])
  })
})
