/**
 * Bad-input mutants of native hook payloads, for every harness and every event it serves: each string
 * field (at any depth) given a lone surrogate, a NUL or 100,000 more characters; each envelope and
 * tool-input field given a value of the wrong type; keys written twice; broken, empty, non-JSON,
 * oversized and 100,000-deep bodies. Each mutant says whether a pre-tool event must be denied for it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { harnessPlugins } from '../../harnesses/index.ts'
import type { HarnessDefinition } from '../../harness-contract/index.ts'

export interface HookRoute {
  readonly harness: HarnessDefinition
  readonly event: string
  readonly pre: boolean
  /** A captured payload of this event (or of the same phase, with the event name swapped in). */
  readonly fixture: string
  readonly body: Record<string, unknown>
}

export interface Mutant {
  readonly name: string
  /** Raw request body. */
  readonly text: string
  readonly contentType?: string
  /**
   * `always`: a pre-tool event must answer a deny; `unless-dropped`: a deny unless the harness's tool mapping
   * drops the field (Codex apply_patch keeps only its patch), so never looser than the payload without it.
   */
  readonly deny: 'always' | 'unless-dropped' | 'no'
}

const ROOT = join(import.meta.dirname, '../../harnesses')
const WRONG: readonly unknown[] = [123, null, [], {}, true]

function fixtures(id: string): { file: string; body: Record<string, unknown> }[] {
  const dir = join(ROOT, id, 'fixtures')
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({ file, body: JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown> }))
}

/** Every (harness, event) the daemon serves, each with every fixture of that event (at least one). */
export function hookRoutes(): HookRoute[] {
  const out: HookRoute[] = []
  for (const { harness } of harnessPlugins) {
    // A payload names its event (`hook_event_name`), or its file does (`pre-tool-use.captured.json` is preToolUse,
    // `tool_execute_before.bash.json` tool_execute_before): harnesses whose event is in the URL only.
    const flat = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '')
    const eventOf = (f: { file: string; body: Record<string, unknown> }) =>
      typeof f.body.hook_event_name === 'string' ? f.body.hook_event_name : Object.keys(harness.events).find((e) => flat(e) === flat(f.file.split('.')[0]!))
    const own = fixtures(harness.id)
    for (const [event, phase] of Object.entries(harness.events)) {
      let matching = own.filter((f) => eventOf(f) === event)
      if (matching.length === 0) {
        const same = own.find((f) => harness.events[String(eventOf(f))] === (phase === 'post_error' ? 'post' : phase))
        if (!same) throw new Error(`${harness.id} ${event}: no fixture of its phase to start from`)
        matching = [{ file: same.file, body: { ...same.body, hook_event_name: event } }]
      }
      for (const f of matching) out.push({ harness, event, pre: phase === 'pre', fixture: f.file, body: f.body })
    }
  }
  return out
}

/** Every string leaf of `value` with its path (object keys and array indexes). */
function stringLeaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [path]
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, [...path, i]))
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]))
  return []
}

function setAt(root: Record<string, unknown>, path: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(root)
  let at: any = copy
  for (const key of path.slice(0, -1)) at = at[key]
  at[path.at(-1)!] = value
  return copy
}

function getAt(root: unknown, path: (string | number)[]): unknown {
  return path.reduce<any>((at, key) => at?.[key], root)
}

/** The mutants of one payload. */
export function mutants(body: Record<string, unknown>): Mutant[] {
  const out: Mutant[] = []
  const json = (b: unknown) => JSON.stringify(b)
  for (const path of stringLeaves(body)) {
    const name = path.join('.')
    const value = getAt(body, path) as string
    const half = Math.floor(value.length / 2)
    out.push({ name: `${name} with a lone surrogate`, text: json(setAt(body, path, `${value.slice(0, half)}\ud800${value.slice(half)}`)), deny: 'always' })
    out.push({ name: `${name} with a NUL`, text: json(setAt(body, path, `${value.slice(0, half)}\u0000${value.slice(half)}`)), deny: 'no' })
    out.push({ name: `${name} 100,000 characters longer`, text: json(setAt(body, path, `${value}${'a'.repeat(100_000)}`)), deny: 'no' })
  }
  const input = typeof body.tool_input === 'object' && body.tool_input !== null ? (body.tool_input as Record<string, unknown>) : {}
  const fields = [...Object.keys(body).map((k) => [k]), ...Object.keys(input).map((k) => ['tool_input', k])]
  for (const path of fields) for (const value of WRONG) out.push({ name: `${path.join('.')} = ${json(value)}`, text: json(setAt(body, path, value)), deny: 'no' })
  // A key twice: JSON.parse keeps the last one; other readers keep the first or fail.
  for (const key of Object.keys(body)) out.push({ name: `"${key}" twice`, text: `{${json(key)}:"decoy",${json(body).slice(1)}`, deny: 'always' })
  for (const key of Object.keys(input))
    out.push({ name: `"tool_input.${key}" twice`, text: json(body).replace('"tool_input":{', `"tool_input":{${json(key)}:"ls",`), deny: 'always' })
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
  out.push({ name: '100,000-deep nesting in tool_input', text: json({ ...body, tool_input: { ...input, x: 0 } }).replace('"x":0', `"x":${deep}`), deny: 'unless-dropped' })
  out.push({ name: 'malformed JSON', text: json(body).slice(0, -3), deny: 'always' })
  out.push({ name: 'an empty body', text: '', deny: 'always' })
  out.push({ name: 'a JSON array', text: `[${json(body)}]`, deny: 'always' })
  out.push({ name: 'a text/plain body', text: json(body), contentType: 'text/plain', deny: 'always' })
  out.push({ name: 'a body over the 8 MiB limit', text: json({ ...body, padding: 'a'.repeat(8 * 1024 * 1024) }), deny: 'always' })
  return out
}
