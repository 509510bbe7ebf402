/**
 * bench/policy: a 10,000-gate policy. Prints (1) how long it takes to load at boot, (2) decision latency
 * over the same mixed calls with the built-in policy alone and with the 10,000 extra gates (indexed by tool
 * and program, so only the gates that can match run), and (3) answering while the big file loads into a
 * running engine: decisions answered and their worst latency until the new policy swaps in.
 * Run: npm run bench:policy   (BENCH_GATES to change the size)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { join } from 'node:path'
import pino from 'pino'
import { SHIPPED_POLICIES_DIR } from '../../cli/paths.ts'
import { allPlugins } from '../../cli/plugins.ts'
import { createEngine, type Engine, type ToolCall } from '../../core/index.ts'
import { mixedCalls } from '../lib/calls.ts'
import { formatUs, mib, summarise } from '../lib/stats.ts'

const GATES = Number(process.env.BENCH_GATES ?? 10_000)
const CALLS = 2000

/** Gates as an organisation's generated rule set looks: per-program command rules, per-tool rules, a few globs. */
function bigPolicy(n: number): string {
  const lines = ['version: 1', 'mode: firewall', 'gates:']
  for (let i = 0; i < n; i++) {
    const id = `org.rule-${i}`
    if (i % 10 < 7) lines.push(`  - { id: ${id}, when: { command: { program: prog${i}, args_any: "--danger-${i}" } } }`)
    else if (i % 10 < 9) lines.push(`  - { id: ${id}, when: { tool: Tool${i}, jsonpath: { path: "$.x", equals: "${i}" } } }`)
    else lines.push(`  - { id: ${id}, when: { all: [ { tool: Bash }, { command: { program: [git, npm], args_all: ["--org-${i}"] } } ] } }`)
  }
  return `${lines.join('\n')}\n`
}

async function engineWith(userPolicy?: string): Promise<{ engine: Engine; home: string; ms: number }> {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-policy-'))
  if (userPolicy) writeFileSync(join(home, 'user-policy.yaml'), userPolicy)
  const t = performance.now()
  const engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
  return { engine, home, ms: performance.now() - t }
}

/** Process CPU µs per decision of the last decideAll (steadier than latency on a shared machine). */
const cpuPerDecision: number[] = []

async function decideAll(engine: Engine, calls: readonly ToolCall[]): Promise<number[]> {
  const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
  for (const c of calls.slice(0, 500)) await engine.decide(c, session) // warm-up
  const out: number[] = []
  const cpu = process.cpuUsage()
  for (const c of calls) {
    const t = process.hrtime.bigint()
    await engine.decide(c, session)
    out.push(Number(process.hrtime.bigint() - t))
  }
  const used = process.cpuUsage(cpu)
  cpuPerDecision.push((used.user + used.system) / calls.length)
  return out
}

const text = bigPolicy(GATES)
const calls = mixedCalls('s', CALLS)
const small = await engineWith()
const big = await engineWith(text)
const smallNs = await decideAll(small.engine, calls)
const bigNs = await decideAll(big.engine, calls)
console.log(`svc bench/policy — ${GATES} extra gates (${mib(Buffer.byteLength(text))} of YAML), ${CALLS} mixed calls, Node ${process.version}`)
console.log(`boot load: built-in only ${small.ms.toFixed(0)} ms, with ${GATES} gates ${big.ms.toFixed(0)} ms   rss ${mib(process.memoryUsage().rss)}`)
console.log(formatUs(`decide, ${small.engine.policy.allGates().length} gates`, summarise(smallNs)))
console.log(formatUs(`decide, ${big.engine.policy.allGates().length} gates`, summarise(bigNs)))
console.log(`process CPU per decision: ${cpuPerDecision.map((us) => `${us.toFixed(0)} µs`).join(' (built-in only), ')} (with ${GATES} gates)`)
await big.engine.close()
rmSync(big.home, { recursive: true, force: true })

// Answering while loading: the big file appears under a running engine; decisions keep flowing.
const live = small.engine
const session = live.sessions.create({ signer: 'unattested' }, Date.now())
const before = live.policy.hash
writeFileSync(join(small.home, 'user-policy.yaml'), text)
const t0 = performance.now()
const loading = live.policy.refreshInBackground()
let done = false
void loading.then(() => (done = true))
// Requests arrive from the network: each decision starts on a new turn of the event loop, so a load that
// blocked the loop would show as a long gap (the event-loop delay) and as slow decisions.
const lag = monitorEventLoopDelay({ resolution: 5 })
lag.enable()
const during: number[] = []
for (let i = 0; !done; i++) {
  await nextTurn()
  const t = process.hrtime.bigint()
  await live.decide(calls[i % calls.length]!, session)
  during.push(Number(process.hrtime.bigint() - t))
}
lag.disable()
const loadMs = performance.now() - t0
if (live.policy.hash === before || live.policy.allGates().length < GATES) throw new Error('the big policy did not swap in')
console.log(`live reload of ${GATES} gates: ${loadMs.toFixed(0)} ms; ${during.length} decisions answered meanwhile`)
console.log(formatUs('decide while loading', summarise(during)))
console.log(`event-loop delay while loading: p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(1)} ms`)
await live.close()
rmSync(small.home, { recursive: true, force: true })
