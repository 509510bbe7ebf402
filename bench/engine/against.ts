/**
 * bench/engine against another checkout, in one process: this checkout's engine and the other's (its own code and
 * shipped policies) decide the same mixed calls in turn, call by call, the order swapped every call. Both see the
 * same machine at the same moment: on a shared machine whose speed drifts between runs, two separate runs of
 * bench:engine compare the drift as much as the code.
 * Run: npm run bench:engine-against -- <other checkout> [rounds, default 4]
 *   e.g. git worktree add /tmp/svc-base <commit> && ln -s $PWD/node_modules /tmp/svc-base/node_modules
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import type { Engine, Session } from '../../core/index.ts'
import { mixedCalls } from '../lib/calls.ts'
import { formatUs, summarise } from '../lib/stats.ts'

const [other, roundsArg] = process.argv.slice(2)
if (!other || !existsSync(join(other, 'core/index.ts'))) {
  console.error('usage: npm run bench:engine-against -- <other checkout of svc> [rounds]')
  process.exit(2)
}
const CALLS = Number(process.env.BENCH_CALLS ?? 10_000)
const rounds = Number(roundsArg ?? 4)
// The engine loaded second runs slower (a checkout against a copy of itself: +2–5 % p50, +30–40 % p99), so each round
// is a process of its own and the load order swaps every round; compare the two orders' rounds, never one.
const first = process.env.BENCH_AGAINST_FIRST
if (first === undefined) {
  console.log(`svc bench/engine-against — ${CALLS} mixed calls per round, decided by both engines in turn, Node ${process.version}`)
  for (let round = 1; round <= rounds; round++) {
    console.log(`--- round ${round}, ${round % 2 === 1 ? 'other' : 'this'} loaded first`)
    const env = { ...process.env, BENCH_AGAINST_FIRST: round % 2 === 1 ? 'other' : 'this' }
    const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, other], { stdio: ['ignore', 'inherit', 'inherit'], env })
    if (r.status !== 0) process.exit(r.status ?? 1)
  }
  process.exit(0)
}

interface Side {
  readonly label: string
  readonly engine: Engine
  readonly session: Session
  readonly home: string
}

/** An engine built by `root`'s own modules, with every pack it ships. */
async function sideOf(label: string, root: string): Promise<Side> {
  const { SHIPPED_POLICIES_DIR } = await import(join(root, 'cli/paths.ts'))
  const { allPlugins } = await import(join(root, 'cli/plugins.ts'))
  const { createEngine } = await import(join(root, 'core/index.ts'))
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-against-'))
  const engine: Engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
  return { label: `${label} (${root})`, engine, session: engine.sessions.create({ signer: 'unattested' }, Date.now()), home }
}

const loaded = first === 'this' ? [await sideOf('this', PROJECT_ROOT), await sideOf('other', other)] : [await sideOf('other', other), await sideOf('this', PROJECT_ROOT)]
const sides = first === 'this' ? loaded.reverse() : loaded
// The same calls for both (this checkout's mixed workload), each list bound to its side's session.
const calls = sides.map((side) => mixedCalls(side.session.id, CALLS))
const decide = (s: number, i: number) => sides[s]!.engine.decide(calls[s]![i]!, sides[s]!.session)
for (let i = 0; i < Math.min(CALLS, 1000); i++) for (const s of [0, 1]) await decide(s, i) // warm-up (JIT, caches)

// One round, this process's.
const samples = sides.map(() => [] as number[])
for (let i = 0; i < CALLS; i++) {
  for (const s of i % 2 === 0 ? [0, 1] : [1, 0]) {
    const t = process.hrtime.bigint()
    await decide(s, i)
    samples[s]!.push(Number(process.hrtime.bigint() - t))
  }
}
const [before, after] = samples.map(summarise)
for (const [s, side] of sides.entries()) console.log(formatUs(`decide, ${side.label}`, summarise(samples[s]!)))
const change = (a: number, b: number) => `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`
console.log(`this vs other: p50 ${change(before!.p50, after!.p50)}, p99 ${change(before!.p99, after!.p99)}, mean ${change(before!.mean, after!.mean)}`)
for (const side of sides) {
  await side.engine.close()
  rmSync(side.home, { recursive: true, force: true })
}
