/**
 * Tools for rule authors. `svc policy test [path]` runs the fixtures of a policy file, a registry rule folder,
 * a directory of packs, or (no path) the shipped packs with `$SVC_HOME`'s own files, RuleTester style: a diff
 * per failing fixture and a non-zero exit. `svc policy lint [path]` reports schema errors with line:col,
 * duplicate ids across layers, shadowed gates and `when` blocks that match every call or none.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { Command } from 'commander'
import { EngineError, formatEngineError } from '../../core/index.ts'
import { loadRuleAuthoring } from '../../plugins/rule-lifecycle/index.ts'
import { CliError, type CliIo } from '../io.ts'
import { SHIPPED_POLICIES_DIR, svcHome } from '../paths.ts'
import { makeBundleCommand } from '../policy/bundle.ts'
import { lintPolicies } from '../policy/lint.ts'
import { choosePack, listPacks, managedPackFloor, renderPacks } from '../policy/packs.ts'
import { fixtureWorld, policyFilesAt } from '../policy/world.ts'

/** The shipped packs plus the policy files of `$SVC_HOME` (its registry rules, daemon and user files). */
export function layeredFiles(home: string): string[] {
  const registry = join(home, 'registry')
  const rules = existsSync(registry)
    ? readdirSync(registry)
        .sort()
        .map((id) => join(registry, id, 'rule.yaml'))
    : []
  return [...policyFilesAt(SHIPPED_POLICIES_DIR), ...[join(home, 'policy.yaml'), ...rules, join(home, 'user-policy.yaml')].filter((f) => existsSync(f))]
}

async function test(io: CliIo, path: string | undefined, opts: { home?: string; json?: boolean }): Promise<void> {
  const files = path === undefined ? layeredFiles(svcHome(io.env, opts.home)) : policyFilesAt(path)
  const { describeFailure, fixturesOf, runFixture } = await loadRuleAuthoring()
  let world
  try {
    world = await fixtureWorld(files)
  } catch (err) {
    if (err instanceof EngineError) throw new CliError(formatEngineError(err))
    throw err
  }
  let passed = 0
  const failures: string[] = []
  let total = 0
  try {
    for (const { policy, fixtures } of world.files) {
      let list
      try {
        list = fixturesOf(policy)
      } catch (err) {
        failures.push(`✗ ${(err as Error).message}`)
        continue
      }
      for (const [i, f] of list.entries()) {
        total++
        const r = await runFixture(world.engine, f, world.home, world.cwd)
        if (r.ok) passed++
        else failures.push(describeFailure(r, fixtures, i))
      }
    }
  } finally {
    await world.close()
  }
  if (opts.json) io.out(JSON.stringify({ total, passed, failed: total - passed, failures }, null, 2))
  else {
    for (const f of failures) io.err(f)
    io.out(`${passed} of ${total} fixtures passed (${files.length} policy file${files.length === 1 ? '' : 's'})`)
  }
  if (total === 0) throw new CliError(`no fixtures found for ${path ?? 'the layered policy'} (see fixtures beside each policy file)`)
  if (failures.length > 0) throw new CliError(`${failures.length} fixture(s) failed`)
}

export function makePolicyCommand(io: CliIo): Command {
  const policy = new Command('policy').description('tools for rule authors: run fixtures, lint policy files, build and sign policy bundles')
  policy.addCommand(
    new Command('test')
      .description('run gate fixtures (expected verdict and rule per call) against a policy file, a registry rule folder, a directory, or the layered policy')
      .argument('[path]', 'policy file, rule folder or directory (default: shipped packs and $SVC_HOME files)')
      .option('--home <dir>', '$SVC_HOME whose files join the layered policy')
      .option('--json', 'print the result as JSON')
      .action((path: string | undefined, opts: { home?: string; json?: boolean }) => test(io, path, opts)),
  )
  policy.addCommand(
    new Command('lint')
      .description('schema errors (line:col), duplicate gate ids across layers, shadowed gates, `when` blocks matching every call or none')
      .argument('[path]', 'policy file, rule folder or directory (default: shipped packs and $SVC_HOME files)')
      .option('--home <dir>', '$SVC_HOME whose files are the other layers')
      .action(async (path: string | undefined, opts: { home?: string }) => {
        const home = svcHome(io.env, opts.home)
        const targets = path === undefined ? layeredFiles(home) : policyFilesAt(path)
        const findings = await lintPolicies(targets, layeredFiles(home))
        for (const f of findings) io.out(`${f.file}${f.line ? `:${f.line}:${f.col ?? 1}` : ''}: ${f.severity}: ${f.message}`)
        const errors = findings.filter((f) => f.severity === 'error').length
        io.out(`${targets.length} file(s): ${errors} error(s), ${findings.length - errors} warning(s)`)
        if (errors > 0) throw new CliError(`lint found ${errors} error(s)`)
      }),
  )
  policy.addCommand(makeBundleCommand(io))
  policy.addCommand(makePacksCommand(io))
  return policy
}

/** `svc policy packs [enable|disable|severity]`: the shipped packs, what each covers, its state; the operator's choices. */
function makePacksCommand(io: CliIo): Command {
  const home = (opts: { home?: string }) => svcHome(io.env, opts.home)
  const packs = new Command('packs')
    .description("list the shipped packs with what each covers and its state; enable, disable or set a pack's severity")
    .option('--home <dir>', '$SVC_HOME whose choices to show')
    .option('--json', 'print the packs as JSON')
    .action((opts: { home?: string; json?: boolean }) => {
      const list = listPacks(SHIPPED_POLICIES_DIR, home(opts), managedPackFloor(io.env))
      io.out(opts.json ? JSON.stringify(list, null, 2) : renderPacks(list))
    })
  const choose = (name: string, description: string, choice: (severity?: string) => 'off' | 'deny' | 'monitor' | undefined, args: string[] = ['<pack>']) => {
    const c = new Command(name).description(description).option('--home <dir>', '$SVC_HOME to record the choice in')
    for (const a of args) c.argument(a)
    packs.addCommand(
      c.action((pack: string, ...rest: unknown[]) => {
        const severity = args.length > 1 ? (rest[0] as string) : undefined
        // `--home` may be given before the verb (read by `packs`) or after it.
        const where = home({ home: (rest[args.length - 1] as { home?: string }).home ?? (packs.opts() as { home?: string }).home })
        choosePack(SHIPPED_POLICIES_DIR, where, pack, choice(severity), managedPackFloor(io.env))
        io.out(
          renderPacks(listPacks(SHIPPED_POLICIES_DIR, where, managedPackFloor(io.env)))
            .split('\n')
            .find((l) => l.startsWith(`${pack} `)) ?? pack,
        )
      }),
    )
  }
  choose('enable', 'turn a pack back on, as shipped', () => undefined)
  choose('disable', 'turn a shipped pack off (a pack the signed bundle carries stays in force)', () => 'off')
  choose(
    'severity',
    'set every gate of a pack to deny or monitor (`default`: as shipped)',
    (severity) => {
      if (severity === 'default') return undefined
      if (severity === 'deny' || severity === 'monitor') return severity
      throw new CliError(`severity must be deny, monitor or default, not "${severity}"`, 2)
    },
    ['<pack>', '<severity>'],
  )
  return packs
}
