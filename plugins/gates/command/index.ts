/**
 * `command`: matches one analysed simple command by program, subcommand, arguments, option flags,
 * paths it touches and how it was reached. Every field given must hold for the same command, so
 * `git commit -m "git reset --hard"` never matches a `reset --hard` rule.
 */
import {
  assertKnownPortBindings,
  bindPortGlob,
  CASE_INSENSITIVE_FS,
  compileGlob,
  defineGateKind,
  homeGlobsFor,
  isLiteralGlob,
  namesSvcPorts,
  svcPortsKey,
  svcPortsOf,
  type EvalContext,
  type EvalRequest,
  type GlobRoots,
  type Glob,
  type ShellCommand,
} from '../../../core/index.ts'
import { firstPositional, hasFlag } from './argv.ts'

type List = string | string[]

/** The YAML value of a `command` leaf; every field given must hold for the same simple command. */
export interface CommandValue {
  program?: List
  program_not?: List
  subcommand?: List
  args_any?: List
  args_all?: List
  args_none?: List
  flags_any?: List
  paths_any?: List
  paths_except?: List
  reads_any?: List
  writes_any?: List
  via_any?: List
}

const list = {
  oneOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
  ],
}
const FIELDS = [
  'program',
  'program_not',
  'subcommand',
  'args_any',
  'args_all',
  'args_none',
  'flags_any',
  'paths_any',
  'paths_except',
  'reads_any',
  'writes_any',
  'via_any',
] as const

const toList = (v: List | undefined): string[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v])
const globs = (v: List | undefined): Glob[] | undefined => toList(v)?.map((p) => compileGlob(p, { pathMode: false }))

/** Argument globs; `$SVC_PORTS` in one is bound to the context's ports, compiled once per port set. */
function argGlobs(v: List | undefined): ((ctx: EvalContext) => Glob[]) | undefined {
  const patterns = toList(v)
  if (!patterns) return undefined
  patterns.forEach((p) => {
    assertKnownPortBindings(p)
  })
  if (!patterns.some(namesSvcPorts)) {
    const fixed = patterns.map((p) => compileGlob(p, { pathMode: false }))
    return () => fixed
  }
  // Validates every pattern at load.
  patterns.forEach((p) => {
    compileGlob(bindPortGlob(p, [7878]), { pathMode: false })
  })
  const byPorts = new Map<string, Glob[]>()
  // The daemon's port set is one (immutable) array until it is rebound: asked by identity first, like homeGlobsFor.
  let last: { ports: readonly number[]; compiled: Glob[] } | undefined
  return (ctx) => {
    const ports = svcPortsOf(ctx)
    if (last?.ports === ports) return last.compiled
    const key = svcPortsKey(ports)
    let compiled = byPorts.get(key)
    if (!compiled) {
      compiled = patterns.map((p) => compileGlob(bindPortGlob(p, ports), { pathMode: false }))
      byPorts.set(key, compiled)
    }
    last = { ports, compiled }
    return compiled
  }
}

/** Path globs with `~` bound to the governed user's home, compiled once per home. */
function pathGlobs(v: List | undefined): ((roots: GlobRoots) => Glob) | undefined {
  const patterns = toList(v)
  return patterns ? homeGlobsFor(patterns) : undefined
}

export default defineGateKind<CommandValue>({
  kind: 'command',
  description:
    "Matches an analysed simple command by program, subcommand, arguments, flags, paths, writes and wrappers; all fields must hold for the same command. `$SVC_PORTS` in an argument glob stands for the control plane's ports.",
  schema: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: Object.fromEntries(FIELDS.map((f) => [f, list])),
  },
  compile(value) {
    const program = programMatcher(value.program)
    const programNot = programMatcher(value.program_not)
    const subcommand = toList(value.subcommand)
    const argsAny = argGlobs(value.args_any)
    const argsAll = argGlobs(value.args_all)
    const argsNone = argGlobs(value.args_none)
    const flags = toList(value.flags_any)
    const paths = pathGlobs(value.paths_any)
    const pathsExcept = pathGlobs(value.paths_except)
    const reads = pathGlobs(value.reads_any)
    const writes = pathGlobs(value.writes_any)
    const via = globs(value.via_any)
    const anyMatch = (gs: Glob[], items: readonly string[]): string | undefined => items.find((item) => gs.some((g) => g.test(item)))
    // Fields that must find something in a list cannot hold when the command's list is empty: most commands
    // are rejected by these length checks before any glob runs (every command gate sees every shell command).
    const needsArgs = subcommand !== undefined || argsAny !== undefined || argsAll !== undefined || flags !== undefined
    const needsPaths = paths !== undefined || reads !== undefined

    return function commandMatches(request: EvalRequest, ctx) {
      for (const command of request.shell?.commands ?? []) {
        const why = matchOne(command, ctx)
        if (why !== undefined) return why
      }
      return undefined
    }

    function matchOne(command: ShellCommand, ctx: EvalContext): string | undefined {
      if (needsArgs && command.argv.length < 2) return undefined
      if (needsPaths && !command.paths?.length) return undefined
      if (writes && !command.writes?.length) return undefined
      if (via && command.via.length === 0) return undefined
      if (program && !program(command.program)) return undefined
      if (programNot?.(command.program)) return undefined
      if (subcommand) {
        const sub = firstPositional(command.program, command.argv, 1)
        if (sub === undefined || !subcommand.includes(sub)) return undefined
      }
      const roots: GlobRoots = ctx
      const args = command.argv.slice(1)
      const details: string[] = []
      if (argsAny) {
        const hit = anyMatch(argsAny(ctx), args)
        if (hit === undefined) return undefined
        details.push(`argument ${hit}`)
      }
      if (argsAll && !argsAll(ctx).every((g) => args.some((a) => g.test(a)))) return undefined
      if (argsNone && anyMatch(argsNone(ctx), args) !== undefined) return undefined
      if (flags) {
        const flag = flags.find((f) => hasFlag(args, f))
        if (flag === undefined) return undefined
        details.push(`flag ${flag.length === 1 ? '-' : '--'}${flag}`)
      }
      if (paths) {
        const except = pathsExcept?.(roots)
        const list = paths(roots)
        const hit = command.paths?.find((p) => list.test(p) && !except?.test(p))
        if (hit === undefined) return undefined
        details.push(`path ${hit}`)
      }
      if (reads) {
        // Paths the command only writes by redirection (`echo X >> .env`) are not reads.
        const except = pathsExcept?.(roots)
        const list = reads(roots)
        const hit = command.paths?.find((p) => (!command.writes?.includes(p) || command.readsToo?.includes(p)) && list.test(p) && !except?.test(p))
        if (hit === undefined) return undefined
        details.push(`reads ${hit}`)
      }
      if (writes) {
        const list = writes(roots)
        const hit = command.writes?.find((p) => list.test(p))
        if (hit === undefined) return undefined
        details.push(`writes ${hit}`)
      }
      if (via) {
        const hit = anyMatch(via, command.via)
        if (hit === undefined) return undefined
        details.push(`via ${hit}`)
      }
      const reached = command.via.length > 0 ? ` (via ${command.via.join(' → ')})` : ''
      return `command \`${truncate(command.text)}\`${reached}${details.length > 0 ? `: ${details.join(', ')}` : ''}`
    }
  },
  // Literal program names index the gate; with a glob, or case folding (a case-insensitive file system), the
  // leaf still needs a command, and one with paths when it asks for paths, reads or writes (record.ts: writes are paths).
  index(value) {
    const programs = toList(value.program)
    if (programs && !CASE_INSENSITIVE_FS && programs.every(isLiteralGlob)) return { programs }
    return { facets: [value.paths_any || value.reads_any || value.writes_any ? 'paths' : 'commands'] }
  },
})

/**
 * Whether a program name matches one of `patterns`. A program is found on disk: where the file system ignores
 * case, so does the name. Literal names (most are) are one set lookup instead of a glob each.
 */
function programMatcher(v: List | undefined): ((name: string) => boolean) | undefined {
  const patterns = toList(v)
  if (!patterns) return undefined
  const globs = patterns.map((p) => compileGlob(p, { pathMode: false, caseInsensitive: CASE_INSENSITIVE_FS }))
  if (CASE_INSENSITIVE_FS) return (name) => globs.some((g) => g.test(name))
  const names = new Set(patterns.filter(isLiteralGlob))
  const rest = globs.filter((g) => !isLiteralGlob(g.source))
  return rest.length === 0 ? (name) => names.has(name) : (name) => names.has(name) || rest.some((g) => g.test(name))
}

function truncate(text: string): string {
  return text.length > 160 ? `${text.slice(0, 157)}...` : text
}
