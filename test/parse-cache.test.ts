/**
 * The policy parse cache ($SVC_HOME/cache/policy): an unchanged file skips YAML parsing and schema checks at the
 * next start, and nothing else does — a changed, broken or foreign entry is a miss, a changed file is parsed
 * and validated again (an invalid edit still fails the load), and the repo layer (agent-written) is never kept.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { allPlugins } from '../cli/plugins.ts'
import { createEngine, defineGateKind, type EnginePlugin } from '../core/index.ts'
import { parseCacheInProcessHits } from '../core/policy/parse-cache.ts'
import { tempDir } from './helpers/temp.ts'

const log = pino({ level: 'silent' })
const DENY_RM = `version: 1
gates:
  - id: base.no-rm
    when: { tool: Bash, command_regex: '^rm ' }
`

function setup(text = DENY_RM) {
  const home = tempDir()
  const policiesDir = tempDir('svc-policies-')
  writeFileSync(join(policiesDir, 'base.yaml'), text)
  return { home, policiesDir, cacheDir: join(home, 'cache', 'policy') }
}

const build = (home: string, policiesDir: string, extra: EnginePlugin[] = []) => createEngine({ plugins: [...allPlugins, ...extra], home, policiesDir, log })

async function verdictOf(home: string, policiesDir: string, command: string, cwd?: string) {
  const engine = await build(home, policiesDir)
  try {
    const s = engine.sessions.create({ signer: 'unattested' }, Date.now())
    return (await engine.check({ sessionId: s.id, source: 'test', tool: 'Bash', input: { command }, ...(cwd ? { cwd } : {}) })).verdict
  } finally {
    await engine.close()
  }
}

const entries = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.json'))
const entryFor = (dir: string) => {
  const [only] = entries(dir)
  return { file: join(dir, only!), ...(JSON.parse(readFileSync(join(dir, only!), 'utf8')) as { key: string; gates: { value: Record<string, unknown> }[] }) }
}

describe('policy parse cache', () => {
  it('keeps a file that loaded and reuses it unchanged at the next start', async () => {
    const { home, policiesDir, cacheDir } = setup()
    expect(await verdictOf(home, policiesDir, 'rm x')).toBe('deny')
    const first = entryFor(cacheDir)
    expect(first.gates.map((g) => g.value.id)).toEqual(['base.no-rm'])
    const written = statSync(first.file).mtimeMs
    expect(await verdictOf(home, policiesDir, 'rm x')).toBe('deny')
    expect(await verdictOf(home, policiesDir, 'ls')).toBe('allow')
    expect(statSync(first.file).mtimeMs).toBe(written) // a hit writes nothing
  })

  it('parses and validates a changed file again: an invalid edit still fails the load', async () => {
    const { home, policiesDir } = setup()
    await verdictOf(home, policiesDir, 'ls')
    writeFileSync(join(policiesDir, 'base.yaml'), DENY_RM.replace('command_regex', 'comand_regex'))
    await expect(build(home, policiesDir)).rejects.toThrow(/comand_regex/)
    writeFileSync(join(policiesDir, 'base.yaml'), `${DENY_RM}    surprise: true\n`)
    await expect(build(home, policiesDir)).rejects.toThrow(/unknown field "surprise"/)
  })

  it('treats a foreign, damaged or stale entry as a miss, never as policy', async () => {
    const { home, policiesDir, cacheDir } = setup()
    await verdictOf(home, policiesDir, 'ls')
    const entry = entryFor(cacheDir)
    // An entry whose key does not match this file and code: its (permissive) gates must not be used.
    writeFileSync(entry.file, JSON.stringify({ ...entry, file: undefined, key: 'f'.repeat(64), gates: [{ value: { id: 'evil', when: { tool: 'Nothing' } }, loc: { file: 'x' } }] }))
    expect(await verdictOf(home, policiesDir, 'rm x')).toBe('deny')
    expect(entryFor(cacheDir).key).toBe(entry.key) // rewritten from the real file
    writeFileSync(entry.file, '{"key": "')
    expect(await verdictOf(home, policiesDir, 'rm x')).toBe('deny')
    expect(entryFor(cacheDir).key).toBe(entry.key)
  })

  it('misses when a gate kind schema changes (entries are bound to the schemas that checked them)', async () => {
    const { home, policiesDir, cacheDir } = setup()
    await verdictOf(home, policiesDir, 'ls')
    const before = entryFor(cacheDir).key
    const extraKind = defineGateKind<string>({ kind: 'test_extra', description: 'test', schema: { type: 'string' }, compile: () => () => undefined })
    const engine = await build(home, policiesDir, [{ name: 'test:extra', apply: (host) => extraKind.apply(host) }])
    await engine.close()
    expect(entryFor(cacheDir).key).not.toBe(before)
  })

  it('an engine over a fresh home reuses what another engine of the process parsed, and its home gets the entry', async () => {
    const { home, policiesDir, cacheDir } = setup(DENY_RM.replace('^rm ', '^rm -r '))
    expect(await verdictOf(home, policiesDir, 'rm -r x')).toBe('deny')
    const other = tempDir()
    const otherCache = join(other, 'cache', 'policy')
    const hits = parseCacheInProcessHits()
    expect(await verdictOf(other, policiesDir, 'rm -r x')).toBe('deny')
    expect(parseCacheInProcessHits()).toBe(hits + 1)
    expect(await verdictOf(other, policiesDir, 'rm x')).toBe('allow')
    expect(entryFor(otherCache).key).toBe(entryFor(cacheDir).key)
    // Other bytes are another key: parsed and validated again, never served from the process's copy.
    writeFileSync(join(policiesDir, 'base.yaml'), DENY_RM.replace('command_regex', 'comand_regex'))
    await expect(build(tempDir(), policiesDir)).rejects.toThrow(/comand_regex/)
    expect(parseCacheInProcessHits()).toBe(hits + 1)
  })

  it('never keeps the repo layer, which agents write', async () => {
    const { home, policiesDir, cacheDir } = setup()
    const repo = tempDir('svc-repo-')
    mkdirSync(join(repo, '.git'))
    writeFileSync(join(repo, '.svc.yaml'), 'version: 1\ngates:\n  - id: repo.no-make\n    when: { tool: Bash, command_regex: "^make " }\n')
    expect(await verdictOf(home, policiesDir, 'make deploy', repo)).toBe('deny')
    expect(entries(cacheDir)).toHaveLength(1) // base.yaml only
    expect(entryFor(cacheDir).gates.map((g) => g.value.id)).toEqual(['base.no-rm'])
  })
})
