/**
 * Import direction (STYLE.md §2.1): cli → {plugins, harnesses, guardrail-providers} → core/index.ts → core/*.
 * The core never imports those folders, plugins reach the core only through core/index.ts (types through
 * core/types.ts), and plugin folders never import each other.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'

function sources(dir: string): string[] {
  const out: string[] = []
  let entries: string[] = []
  try {
    entries = readdirSync(dir)
  } catch {
    return out
  }
  for (const name of entries) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sources(path))
    else if (name.endsWith('.ts')) out.push(path)
  }
  return out
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]!).filter((s) => s.startsWith('.'))
}

const top = (file: string) => relative(PROJECT_ROOT, file).split('/')[0]!

describe('architecture', () => {
  it('core imports nothing outside core', () => {
    for (const file of sources(join(PROJECT_ROOT, 'core'))) {
      for (const spec of imports(file)) expect(top(resolve(dirname(file), spec)), `${relative(PROJECT_ROOT, file)} imports ${spec}`).toBe('core')
    }
  })

  it('plugin families import the core only through core/index.ts or core/types.ts, and never each other', () => {
    for (const family of ['plugins', 'harnesses', 'guardrail-providers']) {
      for (const file of sources(join(PROJECT_ROOT, family))) {
        if (file.endsWith('.test.ts')) continue
        for (const spec of imports(file)) {
          const target = resolve(dirname(file), spec)
          const rel = relative(PROJECT_ROOT, target)
          if (top(target) === 'core') {
            expect(['core/index.ts', 'core/types.ts'], `${relative(PROJECT_ROOT, file)} imports ${rel}`).toContain(rel)
          } else {
            expect(top(target), `${relative(PROJECT_ROOT, file)} imports ${rel}`).toBe(family)
          }
        }
      }
    }
  })

  it('keeps files under 400 lines', () => {
    for (const dir of ['core', 'plugins', 'harnesses', 'guardrail-providers', 'cli']) {
      for (const file of sources(join(PROJECT_ROOT, dir))) {
        if (file.endsWith('.test.ts')) continue
        const lines = readFileSync(file, 'utf8').split('\n').length
        expect(lines, relative(PROJECT_ROOT, file)).toBeLessThanOrEqual(400)
      }
    }
  })
})
