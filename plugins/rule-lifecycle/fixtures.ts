/**
 * Gate fixtures: a call (tool, input, cwd, harness) with the verdict and rule id it must get. A policy file's
 * fixtures live beside it: `fixtures/<file>` in the same directory (the shipped packs: `policies/fixtures/`),
 * `fixtures.yaml` beside a registry `rule.yaml`, else `<name>.fixtures.yaml`. `~` at the start of `cwd` and of
 * path-like input values means the governed user's home.
 *
 * ```yaml
 * fixtures:
 *   - name: hard reset to an older commit
 *     command: git reset --hard HEAD~3      # shorthand for tool: Bash, input: {command}
 *     expect: deny
 *     rule: git.reset-hard
 *   - tool: run_shell_command               # a native tool name, mapped as the hook path maps it
 *     harness: gemini
 *     input: { command: git status }
 *     cwd: ~/proj
 *     expect: allow
 * ```
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { parse } from 'yaml'
import { lazyValidator, type Decision, type Engine, type EvalRequest, type ToolCall } from '../../core/index.ts'
import { harnessCall } from './harness-call.ts'

export type Expectation = 'allow' | 'deny' | 'monitor_alert'

export interface Fixture {
  readonly name?: string
  readonly tool: string
  readonly input: Record<string, unknown>
  readonly cwd?: string
  readonly harness?: string
  readonly expect: Expectation
  readonly rule?: string
}

const fixtureSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['expect'],
  properties: {
    name: { type: 'string' },
    command: { type: 'string' },
    tool: { type: 'string', minLength: 1 },
    input: { type: 'object' },
    cwd: { type: 'string' },
    harness: { type: 'string' },
    expect: { enum: ['allow', 'deny', 'monitor_alert'] },
    rule: { type: 'string' },
  },
  oneOf: [
    { required: ['command'], not: { required: ['input'] } },
    { required: ['input'], not: { required: ['command'] } },
  ],
} as const
const fixturesValidator = lazyValidator({
  type: 'object',
  additionalProperties: false,
  required: ['fixtures'],
  properties: { version: { const: 1 }, fixtures: { type: 'array', items: fixtureSchema } },
})

/** Parses a fixtures document; throws naming the file and the first problem. */
export function parseFixtures(text: string, file: string): Fixture[] {
  const doc = parse(text) as unknown
  const validate = fixturesValidator()
  if (!validate(doc)) {
    const err = validate.errors?.[0]
    throw new Error(`${file}: ${err?.instancePath || 'top level'} ${err?.message ?? 'is not a fixtures file'}`)
  }
  return (doc as { fixtures: WrittenFixture[] }).fixtures.map(expandFixture)
}

/** A fixture as written: `command:` is shorthand for `tool: Bash, input: {command}`. */
export type WrittenFixture = Omit<Fixture, 'tool' | 'input'> & { command?: string; tool?: string; input?: Record<string, unknown> }

/** The fixture a written one stands for (the `command:` shorthand expanded). */
export function expandFixture(f: WrittenFixture): Fixture {
  const { command, ...rest } = f
  return { ...rest, tool: f.tool ?? 'Bash', input: command !== undefined ? { command } : (f.input ?? {}) }
}

/** Where the fixtures of a policy file live (whether or not they exist). */
export function fixturesPathFor(policyFile: string): string {
  const dir = dirname(policyFile)
  const name = basename(policyFile)
  if (name === 'rule.yaml') return join(dir, 'fixtures.yaml')
  const shipped = join(dir, 'fixtures', name)
  if (existsSync(join(dir, 'fixtures'))) return shipped
  return join(dir, `${name.replace(/\.ya?ml$/, '')}.fixtures.yaml`)
}

/** The fixtures of a policy file, or [] when it has none. */
export function fixturesOf(policyFile: string): Fixture[] {
  const path = fixturesPathFor(policyFile)
  return existsSync(path) ? parseFixtures(readFileSync(path, 'utf8'), path) : []
}

/** The call a fixture stands for, with `~` expanded to `home` and the harness's tool mapping applied. */
export function fixtureCall(engine: Engine, f: Fixture, home: string, defaultCwd: string): ToolCall {
  const tilde = (v: string) => (v === '~' ? home : v.startsWith('~/') ? join(home, v.slice(2)) : v)
  const input: Record<string, unknown> = { ...f.input }
  for (const key of ['file_path', 'path', 'notebook_path', 'absolute_path']) if (typeof input[key] === 'string') input[key] = tilde(input[key] as string)
  const cwd = tilde(f.cwd ?? defaultCwd)
  const call = f.harness ? harnessCall(engine.registry, f.harness, f.tool, input, cwd) : { source: 'fixture', tool: f.tool, input, cwd }
  return { ...call, sessionId: 'fixture' }
}

export interface FixtureResult {
  readonly fixture: Fixture
  readonly ok: boolean
  readonly got: { verdict: Expectation; rule: string; reason: string }
  readonly request: EvalRequest
}

/** Decides a fixture through the whole layered policy (never recorded) and compares verdict and rule (the first deciding gate, or another gate of the same verdict). */
export async function runFixture(engine: Engine, f: Fixture, home: string, defaultCwd: string): Promise<FixtureResult> {
  const { request, decision } = await engine.decide(fixtureCall(engine, f, home, defaultCwd))
  const got = outcome(decision)
  // Packs overlap (a DELETE on svc's ledger is SQL and a self-protection hit): the rule must be one that decided it.
  const decidedBy = (rule: string) => got.rule === rule || decision.hits.some((h) => h.gateId === rule && (f.expect !== 'deny' || h.onHit === 'deny'))
  const ok = got.verdict === f.expect && (f.rule === undefined || decidedBy(f.rule))
  return { fixture: f, ok, got, request }
}

function outcome(d: Decision): FixtureResult['got'] {
  return { verdict: d.ledgerVerdict, rule: d.ruleId, reason: d.reason }
}

/** A RuleTester-style report of one failing fixture. */
export function describeFailure(r: FixtureResult, file: string, index: number): string {
  const f = r.fixture
  const call = typeof f.input.command === 'string' ? f.input.command : JSON.stringify(f.input)
  return [
    `✗ ${file} #${index + 1}${f.name ? ` (${f.name})` : ''}: ${f.harness ? `${f.harness} ` : ''}${f.tool} ${call}`,
    `    - expected: ${f.expect}${f.rule ? ` by ${f.rule}` : ''}`,
    `    + received: ${r.got.verdict}${r.got.rule ? ` by ${r.got.rule}` : ''}`,
    `      reason:   ${r.got.reason}`,
  ].join('\n')
}
