/**
 * bench/check/decide-cpu: the CPU time of `engine.check` for bench:check's four request bodies, in process
 * (no HTTP, same engine, plugins and shipped policy as the daemon), so a change to the check path can be
 * compared on a shared, loaded machine: CPU time moves far less with load than wall-clock throughput does.
 * Prints CPU µs per check (median of rounds) and how many gates ran per check.
 * Run: node bench/check/decide-cpu.ts   (BENCH_ROUNDS, BENCH_CALLS per round; NODE_OPTIONS=--cpu-prof to profile)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { SHIPPED_POLICIES_DIR } from '../../cli/paths.ts'
import { allPlugins } from '../../cli/plugins.ts'
import { createEngine, type GateTrace, type ToolCall } from '../../core/index.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const CALLS = Number(process.env.BENCH_CALLS ?? 4000)

const home = mkdtempSync(join(tmpdir(), 'svc-bench-decide-'))
const engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
try {
  const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
  const call = (command: string): ToolCall => ({ sessionId: session.id, source: 'claude-code', tool: 'Bash', input: { command }, cwd: '/tmp' })
  const calls = ['git status', 'npm test', 'rm -rf ~', 'git commit -m "wip"'].map(call)
  const traces = await Promise.all(
    calls.map(async (c) => {
      const trace: GateTrace[] = []
      await engine.decide(c, session, trace)
      return trace.length
    }),
  )
  for (let i = 0; i < 1000; i++) await engine.check(calls[i % calls.length]!) // warm-up (JIT, caches)
  const perCheck: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    // Concurrent like bench:check's 10 connections: the ledger batches appends that arrive together.
    const start = process.cpuUsage()
    for (let i = 0; i < CALLS; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => engine.check(calls[(i + k) % calls.length]!)))
    const used = process.cpuUsage(start)
    perCheck.push((used.user + used.system) / CALLS)
  }
  perCheck.sort((a, b) => a - b)
  console.log(`svc bench/check/decide-cpu — ${engine.policy.allGates().length} gates, ${ROUNDS} rounds × ${CALLS} checks, Node ${process.version}`)
  console.log(`CPU per check (process, all threads): median ${perCheck[ROUNDS >> 1]!.toFixed(1)} µs  min ${perCheck[0]!.toFixed(1)} µs  max ${perCheck.at(-1)!.toFixed(1)} µs`)
  console.log(`gates in the policy a check could run (traced, unindexed): ${traces.join(' / ')}`)
} finally {
  await engine.close()
  rmSync(home, { recursive: true, force: true })
}
