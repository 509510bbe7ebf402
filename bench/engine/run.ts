/**
 * bench/engine: engine-only decision latency over the built-in policy (10k mixed calls), without the
 * ledger; then the full check path (decision + durable ledger append) for comparison.
 * Run: npm run bench:engine
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { SHIPPED_POLICIES_DIR } from '../../cli/paths.ts'
import { allPlugins } from '../../cli/plugins.ts'
import { createEngine } from '../../core/index.ts'
import { mixedCalls } from '../lib/calls.ts'
import { formatUs, mib, summarise } from '../lib/stats.ts'

const CALLS = Number(process.env.BENCH_CALLS ?? 10_000)
const home = mkdtempSync(join(tmpdir(), 'svc-bench-'))
const engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
const calls = mixedCalls(session.id, CALLS)
const gates = engine.policy.allGates().length

for (const c of calls.slice(0, 1000)) await engine.decide(c, session) // warm-up (JIT, caches)

const decide: number[] = []
let denies = 0
for (const c of calls) {
  const t = process.hrtime.bigint()
  const { decision } = await engine.decide(c, session)
  decide.push(Number(process.hrtime.bigint() - t))
  if (decision.verdict === 'deny') denies++
}

const check: number[] = []
for (const c of calls.slice(0, Math.min(CALLS, 2000))) {
  const t = process.hrtime.bigint()
  await engine.check(c)
  check.push(Number(process.hrtime.bigint() - t))
}

console.log(`svc bench/engine — ${gates} built-in gates, ${CALLS} mixed calls (${denies} denied), Node ${process.version}`)
console.log(formatUs('decide (engine only)', summarise(decide)))
console.log(formatUs('check (decide + durable ledger)', summarise(check)))
console.log(`rss ${mib(process.memoryUsage().rss)}  heapUsed ${mib(process.memoryUsage().heapUsed)}`)
await engine.close()
rmSync(home, { recursive: true, force: true })
