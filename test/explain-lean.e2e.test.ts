/**
 * `svc explain` builds an engine without what only a daemon needs: no feature route module (`lazyRoutes`), no
 * Fastify. It decides over a temporary copy of the policy and writes nothing (no $SVC_HOME is created), so it parses
 * the packs each time (ajv and yaml load: the probe sees them) and no run warms a cache for the next.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { tempDir } from './helpers/daemon.ts'

const PROBE = `
import module from 'node:module'
const seen = new Set()
module.registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r } })
const out = []
const io = { out(t) { out.push(t) }, err() {}, env: { HOME: process.env.HOME, SVC_HOME: process.env.SVC_HOME }, readStdin: async () => '', ask: async () => undefined, interactive: false }
const code = await (await import(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'cli', 'main.ts')).href)})).main(['explain', 'git push --force origin main'], io)
process.stdout.write(JSON.stringify({ code, out: out.join('\\n'), seen: [...seen] }))
`

function explainLoads(home: string): { code: number; out: string; seen: string[] } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE], {
    env: { PATH: process.env.PATH, HOME: home, SVC_HOME: join(home, '.svc') },
    encoding: 'utf8',
    timeout: 60_000,
  })
  if (r.status !== 0) throw new Error(`probe failed (${r.status}): ${r.stderr}`)
  return JSON.parse(r.stdout) as { code: number; out: string; seen: string[] }
}

const matching = (seen: string[], pattern: RegExp) => seen.filter((u) => pattern.test(u)).map((u) => u.replace(/.*\/(node_modules|plugins)\//, '$1/'))
const ROUTES = /\/plugins\/[^/]+\/(all-)?routes\.ts$/
const FASTIFY = /\/node_modules\/fastify\//
const AJV_YAML = /\/node_modules\/(ajv|yaml)\//

describe('svc explain loads only what deciding needs', () => {
  it('no route module or Fastify ever, and nothing written', () => {
    const home = tempDir()
    const cold = explainLoads(home)
    expect(cold.out).toMatch(/verdict: DENY/)
    expect(matching(cold.seen, AJV_YAML).length).toBeGreaterThan(0) // it parses and validates: the probe sees them
    expect(existsSync(join(home, '.svc')), 'explain writes nothing').toBe(false)
    const warm = explainLoads(home)
    expect(warm.out).toBe(cold.out)
    for (const run of [cold, warm]) {
      expect(matching(run.seen, ROUTES)).toEqual([])
      expect(matching(run.seen, FASTIFY)).toEqual([])
    }
  })
})
