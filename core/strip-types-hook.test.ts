/**
 * The strip cache of an installed svc (core/strip-types-hook.js): a file's stripped JavaScript is kept by the
 * SHA-256 of its TypeScript, so a restart and the ledger writer thread read it instead of stripping again; a
 * changed file is a miss, and a damaged entry is stripped again and rewritten, never returned.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import module from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { strippedSource } from './strip-types-hook.js'

const dirs: string[] = []
const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function counting() {
  const calls: string[] = []
  const stripper = (text: string) => {
    calls.push(text)
    return module.stripTypeScriptTypes(text, { mode: 'strip' })
  }
  return { calls, stripper }
}

const TS = 'export const n: number = 1\nexport function f(a: string): string {\n  return a\n}\n'

describe('the strip cache of an installed svc', () => {
  it('strips a file once, then reads it back; a changed file is stripped again', () => {
    const cache = tempDir('svc-strip-')
    dirs.push(cache)
    const { calls, stripper } = counting()
    const first = strippedSource(TS, cache, stripper)
    expect(first).toContain('export const n         = 1')
    expect(strippedSource(TS, cache, stripper)).toBe(first)
    expect(calls).toHaveLength(1)
    const changed = TS.replace('1', '2')
    expect(strippedSource(changed, cache, stripper)).toContain('= 2')
    expect(calls).toHaveLength(2)
    expect(readdirSync(join(cache, 'svc-strip')).filter((f) => f.endsWith('.js'))).toHaveLength(2)
  })

  it('strips again and rewrites a damaged entry instead of returning it', () => {
    const cache = tempDir('svc-strip-')
    dirs.push(cache)
    const { calls, stripper } = counting()
    const good = strippedSource(TS, cache, stripper)
    const [entry] = readdirSync(join(cache, 'svc-strip'))
    const file = join(cache, 'svc-strip', entry!)
    for (const damaged of [readFileSync(file, 'utf8').slice(0, -10), readFileSync(file, 'utf8').replace('return a', 'return process.exit()'), '', 'not an entry']) {
      writeFileSync(file, damaged)
      expect(strippedSource(TS, cache, stripper)).toBe(good)
    }
    expect(calls).toHaveLength(5)
    expect(strippedSource(TS, cache, stripper)).toBe(good)
    expect(calls).toHaveLength(5) // the last rewrite is intact again
  })

  it('still strips without a cache, or with one it cannot write', () => {
    const { calls, stripper } = counting()
    expect(strippedSource(TS, undefined, stripper)).toContain('function f(a        )')
    // A cache "directory" that is a file: nothing can be read or written under it (root included).
    const dir = tempDir('svc-strip-')
    dirs.push(dir)
    const notADir = join(dir, 'file')
    writeFileSync(notADir, '')
    expect(strippedSource(TS, notADir, stripper)).toContain('function f(a        )')
    expect(calls).toHaveLength(2)
  })
})
