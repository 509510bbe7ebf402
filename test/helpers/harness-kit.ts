/**
 * The contract every registered harness gets tested against for free (like ESLint's RuleTester):
 * - each fixture in `harnesses/<id>/fixtures/` (named `<event-in-kebab-case>[.<variant>].json`) parses
 *   for its event: a pre event to a call with a tool name (or an ignore saying why), a post event to an
 *   outcome or an ignore;
 * - each event renders an answer: a deny carries the reason and the rule id, an allow never the reason;
 * - install → uninstall restores every config file byte for byte (absent files stay absent), user and
 *   repo scope, from empty and from a config the user already wrote.
 * `test/harness-kit.test.ts` runs it over `harnessPlugins`, so a new harness is covered by its one line there.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { HarnessDefinition, HarnessEnv, HarnessPlugin, HarnessScope, HookAnswer } from '../../harness-contract/index.ts'
import { applyInstall, applyUninstall } from '../../plugins/installer/apply.ts'
import { planInstall, planUninstall, type InstallRequest } from '../../plugins/installer/plan.ts'

const HARNESSES_DIR = fileURLToPath(new URL('../../harnesses/', import.meta.url))
const kebab = (event: string) =>
  event
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()

/** The event a fixture belongs to: the longest event whose kebab-case name starts its file name. */
export function fixtureEvent(h: HarnessDefinition, file: string): string | undefined {
  const base = file.replace(/\.json$/, '')
  return Object.keys(h.events)
    .filter((e) => base === kebab(e) || base.startsWith(`${kebab(e)}.`))
    .sort((a, b) => b.length - a.length)[0]
}

const DENY: HookAnswer = { verdict: 'deny', ruleId: 'kit.rule-id', reason: 'kit: the reason it was denied', nudge: 'kit: what to do instead' }
const ALLOW: HookAnswer = { verdict: 'allow', ruleId: '', reason: 'kit: no gate matched' }

/** Registers the kit's tests for one harness plugin. */
export function harnessKit(plugin: HarnessPlugin): void {
  const h = plugin.harness
  describe(`harness kit: ${h.id}`, () => {
    const dir = join(HARNESSES_DIR, h.id, 'fixtures')
    const fixtures = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .sort()
      : []

    it('names every fixture after its event, and has one parsing to a call for every event it installs first', () => {
      for (const file of fixtures) expect(fixtureEvent(h, file), `${file}: name it <event>[.<variant>].json`).toBeDefined()
      const calls = new Set(fixtures.filter((f) => parse(f).kind === 'call').map((f) => fixtureEvent(h, f)))
      expect(calls.size, 'at least one pre-event fixture parses to a call').toBeGreaterThan(0)
    })

    const parse = (file: string) => h.parse(fixtureEvent(h, file)!, JSON.parse(readFileSync(join(dir, file), 'utf8')))
    it.each(fixtures)('parses fixtures/%s for its event', (file) => {
      const parsed = parse(file)
      if (h.events[fixtureEvent(h, file)!] === 'pre') {
        // A pre event either becomes a call, or is left (with a reason) to another event that carries more.
        expect(['call', 'ignore']).toContain(parsed.kind)
        if (parsed.kind === 'call') expect(parsed.call.tool).toMatch(/\S/)
        if (parsed.kind === 'ignore') expect(parsed.why).toMatch(/\S/)
      } else {
        expect(['outcome', 'ignore']).toContain(parsed.kind)
      }
    })

    it('renders a deny with its reason and rule id, an allow without them, for every event', () => {
      for (const [event, phase] of Object.entries(h.events)) {
        if (phase !== 'pre') {
          expect(() => h.render(event, undefined), event).not.toThrow()
          continue
        }
        const deny = h.render(event, DENY).body
        expect(deny, event).toContain(DENY.reason)
        expect(deny, event).toContain(DENY.ruleId)
        expect(h.render(event, ALLOW).body, event).not.toContain(DENY.reason)
      }
    })

    describe.each(['user', 'repo'] as const)('install → uninstall (%s scope)', (scope) => {
      let root: string
      afterEach(() => rmSync(root, { recursive: true, force: true }))
      const world = () => {
        root = mkdtempSync(join(tmpdir(), `svc-kit-${h.id}-`))
        const env: HarnessEnv = { home: join(root, 'home'), repo: join(root, 'repo'), env: {} }
        mkdirSync(env.home)
        mkdirSync(env.repo!)
        return { env, req: request(h, env, scope, join(root, 'svc')) }
      }

      it('round-trips from no config at all', () => roundTrip(h, world(), scope, false))
      it('round-trips a config the user already wrote, byte for byte', () => roundTrip(h, world(), scope, true))
    })
  })
}

function request(h: HarnessDefinition, env: HarnessEnv, scope: HarnessScope, svcHome: string): InstallRequest {
  return { harnesses: [h], scope, env, svcHome, daemonUrl: 'http://127.0.0.1:7878', failOpen: false, transport: 'command' }
}

function roundTrip(h: HarnessDefinition, { env, req }: { env: HarnessEnv; req: InstallRequest }, scope: HarnessScope, seeded: boolean): void {
  const files = h.configLocations(env).filter((l) => l.scope === scope)
  if (seeded) {
    for (const l of files) {
      mkdirSync(dirname(l.path), { recursive: true })
      // Claude Code ignores a settings file that is not strict JSON (install refuses one): its user config has no comments.
      const json = h.id === 'claude-code' ? '{\n  "theme": "dark",\n  "x": [1, 2]\n}\n' : '// mine\n{\n  "theme": "dark",  // keep\n  "x": [1, 2]\n}\n'
      writeFileSync(l.path, l.format === 'toml' ? '# mine\nmodel = "x"\n' : json)
    }
  }
  const snapshot = () => Object.fromEntries(files.map((l) => [l.path, existsSync(l.path) ? readFileSync(l.path, 'utf8') : null]))
  const dirs = () => files.map((l) => existsSync(dirname(l.path)))
  const before = snapshot()
  const dirsBefore = dirs()
  const plan = planInstall(req)
  expect(plan.changes.length, 'install changes at least one config file').toBeGreaterThan(0)
  expect(applyInstall(req, plan.token).applied).toBe(true)
  expect(snapshot()).not.toEqual(before)
  const un = planUninstall({ svcHome: req.svcHome, harnesses: [h], scope })
  expect(un.warnings).toEqual([])
  applyUninstall({ svcHome: req.svcHome, harnesses: [h], scope }, un.token)
  expect(snapshot()).toEqual(before)
  expect(dirs()).toEqual(dirsBefore)
}
