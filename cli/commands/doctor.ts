/**
 * `svc doctor`: everything `svc status` checks, plus whether each harness config svc edited still validates
 * against that harness's published schema; lists what is wrong with what to do, and with `--fix` repairs
 * what it can: refreshes a stale or missing shim, and re-installs hook entries a harness update removed or
 * that call an old daemon URL (the same reviewed-plan machinery as `svc install`, applied atomically).
 */
import { lstatSync } from 'node:fs'
import { hookSocketPath } from '../service/hook-route.ts'
import { separationHowTo, separationProblems } from '../status/separation-advice.ts'
import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import type { HarnessDefinition } from '../../harness-contract/index.ts'
import { entriesOf, harnessEnvOf, loadInstallTools, readManifest, sandboxProbes as runProbes, type ProbeResult } from '../../plugins/installer/index.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl, svcHome, userHomeOf } from '../paths.ts'
import { collectStatus, knownHarnesses, type HarnessHooks, type Problem, type StatusReport } from '../status/collect.ts'
import { renderStatus } from './status.ts'

// The installer's config editors: this module loads only when `svc doctor` runs (or the dashboard asks for it).
const { applyInstall, installShim, parseJsoncStrict, planInstall, schemaProblems } = await loadInstallTools()

const byId = (harnesses: readonly HarnessDefinition[]): ReadonlyMap<string, HarnessDefinition> => new Map(harnesses.map((h) => [h.id, h]))

/** Harness configs svc edited that no longer validate against the harness's schema (no automatic fix). */
export function schemaDrift(hooks: readonly HarnessHooks[], userHome: string, vars: NodeJS.ProcessEnv = {}, harnesses = knownHarnesses()): Problem[] {
  const problems: Problem[] = []
  const defs = byId(harnesses)
  for (const h of hooks) {
    const location = defs
      .get(h.harness)
      ?.configLocations(harnessEnvOf(vars, userHome, harnesses))
      .find((l) => l.path === h.file && l.schema)
    if (!location?.schema) continue
    let found: string[]
    try {
      found = schemaProblems(location.schema, parseJsoncStrict(readFileSync(h.file, 'utf8'), h.file))
    } catch (err) {
      found = [(err as Error).message]
    }
    if (found.length > 0) {
      problems.push({
        what: `${h.file} no longer validates against the ${h.harness} schema: ${found.slice(0, 3).join('; ')}`,
        hint: `fix the file by hand (svc only edits its own entries), then re-run \`svc doctor\``,
      })
    }
  }
  return problems
}

/** The harnesses with hooks installed that run only hooks the user trusted (HarnessDefinition.trust). */
const trusting = (hooks: readonly HarnessHooks[], harnesses: readonly HarnessDefinition[]) => harnesses.filter((d) => d.trust && hooks.some((h) => h.harness === d.id))
const trustRequest = (home: string, id: string, env: NodeJS.ProcessEnv, cwd: string) => ({ svcHome: home, env, cwd, entries: entriesOf(readManifest(home), id) })

/**
 * Asks each such harness itself whether it will run svc's entries: the check status cannot make without
 * starting it (entries moved to other keys, a project layer, a newer harness version). Fixable: doctor --fix
 * trusts exactly svc's entries, as `svc install` does.
 */
export async function trustProblems(hooks: readonly HarnessHooks[], home: string, vars: NodeJS.ProcessEnv, cwd: string, harnesses = knownHarnesses()): Promise<Problem[]> {
  const problems: Problem[] = []
  for (const h of trusting(hooks, harnesses)) {
    const problem = await h.trust!.ask(trustRequest(home, h.id, vars, cwd))
    if (problem) problems.push({ ...problem, fix: { kind: 'trust-hooks', harnesses: [h.id] } })
  }
  return problems
}

/** Applies the fixes `problems` offer; returns one line per fix done. */
async function applyFixes(problems: readonly Problem[], report: StatusReport, userHome: string, vars: NodeJS.ProcessEnv, known: readonly HarnessDefinition[]): Promise<string[]> {
  const done: string[] = []
  if (problems.some((p) => p.fix?.kind === 'refresh-shim')) {
    installShim(report.home)
    done.push(`refreshed the shim ${report.home}/bin/svc-hook`)
  }
  const reinstall = [...new Set(problems.flatMap((p) => (p.fix?.kind === 'reinstall-hooks' && p.fix.scope === 'user' ? (p.fix.harnesses ?? []) : [])))]
  if (reinstall.length > 0) {
    const defs = byId(known)
    const harnesses = reinstall.map((id) => defs.get(id)).filter((h): h is HarnessDefinition => h !== undefined)
    const installed = report.hooks.filter((h) => reinstall.includes(h.harness))
    const req = {
      harnesses,
      scope: 'user' as const,
      env: harnessEnvOf(vars, userHome, known),
      svcHome: report.home,
      daemonUrl: report.url,
      failOpen: false,
      transport: installed.some((h) => h.usesShim) || installed.length === 0 ? ('command' as const) : ('http' as const),
    }
    const plan = planInstall(req)
    if (plan.changes.length > 0) applyInstall(req, plan.token)
    done.push(`re-installed the svc hooks of ${reinstall.join(', ')} for ${report.url} (${plan.changes.length} file(s))`)
  }
  const trust = new Set(problems.flatMap((p) => (p.fix?.kind === 'trust-hooks' ? (p.fix.harnesses ?? []) : [])))
  for (const h of known.filter((d) => d.trust && trust.has(d.id))) done.push((await h.trust!.grant(trustRequest(report.home, h.id, vars, userHome), 'fix')).line)
  return done
}

/** Runs the sandbox probes of every harness with svc hooks or sandbox settings, where its definition offers a way in. */
export function sandboxProbes(report: StatusReport, userHome: string, env: NodeJS.ProcessEnv, harnesses = knownHarnesses()): ProbeResult[] {
  let port = 7878
  try {
    port = Number(new URL(report.url).port) || 7878
  } catch {
    /* the default port */
  }
  const manifest = readManifest(report.home)
  const present = report.sandbox.map((s) => s.harness)
  return runProbes({ harnesses, present, manifest, env: harnessEnvOf(env, userHome, harnesses), svcHome: report.home, port, cwd: process.cwd(), processEnv: env })
}

/** Everything doctor checks: the status report and its problems plus harness configs that drifted from their schema. */
export async function doctorCheck(
  url: string,
  home: string,
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
  harnesses = knownHarnesses(),
): Promise<{ report: StatusReport; problems: Problem[] }> {
  const userHome = userHomeOf(env)
  const report = await collectStatus(url, home, { userHome, vars: env, cwd, harnesses })
  const trust = await trustProblems(report.hooks, home, env, userHome, harnesses)
  // The harness's own answer supersedes status's quick check of the same entries.
  const asked = new Set(trust.flatMap((p) => p.fix?.harnesses ?? []))
  const quick = report.problems.filter((p) => ![...asked].some((id) => p.what.startsWith(`${id}: `)))
  return { report, problems: [...quick, ...trust, ...schemaDrift(report.hooks, userHome, env, harnesses)] }
}

export function makeDoctorCommand(io: CliIo): Command {
  return new Command('doctor')
    .description('check everything status checks and offer fixes (a stale shim, removed hook entries, a changed daemon URL, an invalid harness config)')
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .option('--fix', 'apply the fixes marked [fix] (nothing else is changed)')
    .option('--probe', 'run attacks inside each harness’s sandbox (read $SVC_HOME, write a hook config, reach the daemon port): each must fail')
    .action(async (opts: { url?: string; home?: string; fix?: boolean; probe?: boolean }) => {
      const url = daemonUrl(io.env, opts.url)
      const home = svcHome(io.env, opts.home)
      const check = () => doctorCheck(url, home, io.env)
      let { report, problems } = await check()
      if (opts.fix && problems.some((p) => p.fix)) {
        for (const line of await applyFixes(problems, report, userHomeOf(io.env), io.env, knownHarnesses())) io.out(`fixed: ${line}`)
        ;({ report, problems } = await check())
      }
      io.out(renderStatus({ ...report, problems: [] }).replace(/\nprotection: .*$/s, ''))
      const socket = hookSocketPath(io.env)
      problems = [...problems, ...separationProblems(report, lstatSync(socket, { throwIfNoEntry: false })?.isSocket() ? socket : undefined)]
      const howTo = opts.fix ? separationHowTo(report) : undefined
      if (howTo) io.out(howTo)
      if (opts.probe) {
        for (const p of sandboxProbes(report, userHomeOf(io.env), io.env)) {
          const outcome = p.outcome === 'blocked' ? 'blocked (good)' : p.outcome === 'not-probed' ? 'not probed' : p.residual ? 'reached (known residual)' : 'REACHED'
          io.out(`probe:    ${p.harness}: ${p.probe}: ${outcome}${p.detail ? ` — ${p.detail}` : ''}`)
          if (p.outcome === 'reached' && !p.residual)
            problems.push({
              what: `${p.harness}: from inside its sandbox, "${p.probe}" got through`,
              hint: 're-apply `svc install --sandbox` and check the harness’s sandbox dependencies (Linux: bubblewrap, socat)',
            })
        }
      }
      if (problems.length === 0) return io.out('doctor: everything checks out; protection is in force')
      io.out(`doctor: ${problems.length} problem${problems.length === 1 ? '' : 's'}:`)
      for (const p of problems) io.out(`  - ${p.what}${p.fix ? ' [fix]' : ''}\n    → ${p.hint}`)
      const fixable = problems.filter((p) => p.fix).length
      if (fixable > 0 && !opts.fix) io.out(`run \`svc doctor --fix\` to repair the ${fixable} marked [fix]`)
      throw new CliError(`${problems.length} problem${problems.length === 1 ? '' : 's'} left`)
    })
}
