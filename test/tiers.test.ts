/**
 * Every test file is in its tier (test/tiers.ts), checked from its imports alone: a unit test (`*.test.ts`)
 * starts no process, listens on no port and starts no daemon, Fastify app or in-process CLI; an api test
 * (`*.api.test.ts`) starts no process. Test helpers (test/, testing/) count for what they import, however
 * deep; product modules count only where they start something (the daemon, the app, the CLI).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { TEST_ROOTS, tierOf, type Tier } from './tiers.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** What importing a module can do to a test: start a process, listen on a port, start the daemon, its app or the CLI. */
type Effect = 'process' | 'port' | 'daemon'

const FORBIDDEN: Readonly<Record<Tier, readonly Effect[]>> = { unit: ['process', 'port', 'daemon'], api: ['process'], e2e: [] }

/** Packages and built-ins that start processes or listen. */
const PACKAGE_EFFECTS: Readonly<Record<string, Effect>> = {
  'node:child_process': 'process',
  'playwright-core': 'process',
  '@modelcontextprotocol/sdk/client/stdio.js': 'process',
  'node:http': 'port',
  'node:https': 'port',
  'node:http2': 'port',
  'node:net': 'port',
  'node:dgram': 'port',
}

/**
 * Modules whose effect is decided here rather than by their imports: the product's entry points, helpers whose
 * process half the text rules below catch (run-cli.ts: `runCli` is in-process, `runCliProcess` and `runCli` of
 * `daemon` spawn), fake-bin.ts (it writes a program for the code under test to run), and the one fixture made
 * by a program: the corpus homes' FIFO (Node has no mkfifo; one `mkfifo` per home, nothing of svc's runs).
 */
const MODULE_EFFECTS: Readonly<Record<string, Effect | 'none'>> = {
  'cli/start-daemon.ts': 'daemon',
  'cli/main.ts': 'daemon',
  'daemon/start.ts': 'daemon',
  'daemon/app.ts': 'daemon',
  'test/helpers/run-cli.ts': 'daemon',
  'test/helpers/fake-bin.ts': 'process',
  'test/corpus/harness.ts': 'none',
}

/** Text that spawns whatever the file imports. */
const TEXT_EFFECTS: readonly (readonly [RegExp, Effect, string])[] = [
  [/\brunCliProcess\s*[(,}]/, 'process', 'runCliProcess spawns cli/svc.sh'],
  [/\b\w+\(\s*\[\s*'daemon'\s*,/, 'process', '`svc daemon` always runs as a process (run-cli.ts)'],
  [/fake-security\.sh/, 'process', 'the fake `security` program runs as a process'],
  [/\b(buildApp|startDaemon|startSvcDaemon)\s*\(/, 'daemon', "builds the daemon's app or starts a daemon (daemon/index.ts loads them lazily, out of sight of the import walk)"],
]

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (name.endsWith('.ts') || name.endsWith('.js')) out.push(path)
  }
  return out
}

/** A file's static and dynamic imports with literal specifiers (type-only imports start nothing). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [
    ...[...text.matchAll(/^\s*(import|export)(\s+type\b)?[^'"]*?from\s+['"]([^'"]+)['"]/gm)].filter((m) => !m[2]).map((m) => m[3]!),
    ...[...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
  ]
  return specs.map((s) => (s.startsWith('.') ? relative(ROOT, resolve(dirname(file), s)) : builtinModules.includes(s) ? `node:${s}` : s))
}

const isHelper = (path: string) => (path.startsWith('test/') || path.startsWith('testing/')) && !path.endsWith('.test.ts')

/** Each effect a module has, with the import chain that gives it. */
function effectsOf(path: string, memo = new Map<string, Map<Effect, string>>(), seen = new Set<string>()): Map<Effect, string> {
  const known = memo.get(path)
  if (known) return known
  const effects = new Map<Effect, string>()
  memo.set(path, effects)
  if (seen.has(path)) return effects
  seen.add(path)
  for (const spec of importsOf(join(ROOT, path))) {
    const own = PACKAGE_EFFECTS[spec] ?? MODULE_EFFECTS[spec]
    if (own && own !== 'none' && !effects.has(own)) effects.set(own, spec)
    if (MODULE_EFFECTS[spec] || !isHelper(spec) || !existsSync(join(ROOT, spec))) continue
    for (const [effect, via] of effectsOf(spec, memo, seen)) if (!effects.has(effect)) effects.set(effect, `${spec} → ${via}`)
  }
  return effects
}

const testFiles = walk(ROOT)
  .map((f) => relative(ROOT, f))
  .filter((f) => tierOf(f) !== undefined)

describe('test tiers', () => {
  it('every test file is in a folder the projects run, and each tier has files', () => {
    expect(testFiles.filter((f) => !(TEST_ROOTS as readonly string[]).includes(f.split('/')[0]!))).toEqual([])
    for (const tier of ['unit', 'api', 'e2e'] as const) expect(testFiles.filter((f) => tierOf(f) === tier).length, tier).toBeGreaterThan(10)
  })

  it('the import rules see what they must (a check that finds nothing proves nothing)', () => {
    const memo = new Map<string, Map<Effect, string>>()
    expect(effectsOf('test/helpers/daemon.ts', memo).get('daemon')).toBe('cli/start-daemon.ts')
    expect(effectsOf('test/helpers/daemon-process.ts', memo).get('process')).toBe('node:child_process')
    expect(effectsOf('test/helpers/guardrail-vendors.ts', memo).get('port')).toBe('testing/vendor-server.ts → node:http')
    expect(effectsOf('test/helpers/openapi.ts', memo).get('daemon')).toBeDefined()
    expect(effectsOf('test/helpers/temp.ts', memo).size).toBe(0)
    expect(importsOf(join(ROOT, 'test/tiers.test.ts'))).toContain('test/tiers.ts')
  })

  it('a unit test starts no process, port, daemon, app or CLI; an api test starts no process', () => {
    const memo = new Map<string, Map<Effect, string>>()
    const wrong: string[] = []
    for (const file of testFiles) {
      const tier = tierOf(file)!
      const effects = new Map(effectsOf(file, memo))
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const [re, effect, why] of TEXT_EFFECTS) if (re.test(text) && !effects.has(effect)) effects.set(effect, why)
      for (const effect of FORBIDDEN[tier]) {
        const via = effects.get(effect)
        if (via) wrong.push(`${file} (${tier}): ${effect} via ${via}; rename it *.${effect === 'process' ? 'e2e' : 'api'}.test.ts or drop the import`)
      }
    }
    expect(wrong).toEqual([])
  })
})
