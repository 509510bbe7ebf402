/**
 * bench/policy: a 10,000-gate policy. Prints (1) how long it takes to load at boot, (2) decision latency
 * over the same mixed calls with the built-in policy alone and with the 10,000 extra gates (indexed by tool
 * and program, so only the gates that can match run), and (3) answering while the big file loads into a
 * running engine: decisions answered and their worst latency until the new policy swaps in. CPU figures (per
 * decision, and the longest stretch of main-thread CPU between two answers while loading) hold under a shared
 * machine's load where wall-clock latencies do not. (4) CPU per decision with 100 and with 10,000 gates that
 * cannot match any call of the mix (the index must make them free).
 * Run: npm run bench:policy   (BENCH_GATES to change the size)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
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

/** Gates no call of the mix can match (programs and tools it never uses): what the index must skip. */
function unmatchablePolicy(n: number): string {
  const lines = ['version: 1', 'mode: firewall', 'gates:']
  for (let i = 0; i < n; i++) {
    if (i % 10 < 8) lines.push(`  - { id: org.rule-${i}, when: { command: { program: prog${i}, args_any: "--danger-${i}" } } }`)
    else lines.push(`  - { id: org.rule-${i}, when: { tool: Tool${i}, jsonpath: { path: "$.x", equals: "${i}" } } }`)
  }
  return `${lines.join('\n')}\n`
}

const cpuMs = (): number => {
  const u = process.threadCpuUsage()
  return (u.user + u.system) / 1000
}

/** Decision latencies (ns) and the main thread's CPU per decision (µs). */
async function decideAll(engine: Engine, calls: readonly ToolCall[]): Promise<{ ns: number[]; cpuUs: number }> {
  const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
  for (const c of calls.slice(0, 500)) await engine.decide(c, session) // warm-up
  const ns: number[] = []
  const cpu0 = cpuMs()
  for (const c of calls) {
    const t = process.hrtime.bigint()
    await engine.decide(c, session)
    ns.push(Number(process.hrtime.bigint() - t))
  }
  return { ns, cpuUs: ((cpuMs() - cpu0) * 1000) / calls.length }
}

const text = bigPolicy(GATES)
const calls = mixedCalls('s', CALLS)
const small = await engineWith()
const big = await engineWith(text)
const smallRun = await decideAll(small.engine, calls)
const bigRun = await decideAll(big.engine, calls)
console.log(
  `svc bench/policy — ${GATES} extra gates (${mib(Buffer.byteLength(text))} of YAML), ${CALLS} mixed calls, Node ${process.version}, load average ${loadavg()[0]!.toFixed(2)}`,
)
console.log(`boot load: built-in only ${small.ms.toFixed(0)} ms, with ${GATES} gates ${big.ms.toFixed(0)} ms   rss ${mib(process.memoryUsage().rss)}`)
console.log(`${formatUs(`decide, ${small.engine.policy.allGates().length} gates`, summarise(smallRun.ns))}  CPU ${smallRun.cpuUs.toFixed(0)} µs/decision`)
console.log(`${formatUs(`decide, ${big.engine.policy.allGates().length} gates`, summarise(bigRun.ns))}  CPU ${bigRun.cpuUs.toFixed(0)} µs/decision`)
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
// Main-thread CPU between the end of one answer and the start of the next: what the load takes in one go.
const stretches: number[] = []
let answered = cpuMs()
for (let i = 0; !done; i++) {
  await nextTurn()
  stretches.push(cpuMs() - answered)
  const t = process.hrtime.bigint()
  await live.decide(calls[i % calls.length]!, session)
  during.push(Number(process.hrtime.bigint() - t))
  answered = cpuMs()
}
lag.disable()
const loadMs = performance.now() - t0
if (live.policy.hash === before || live.policy.allGates().length < GATES) throw new Error('the big policy did not swap in')
console.log(`live reload of ${GATES} gates: ${loadMs.toFixed(0)} ms; ${during.length} decisions answered meanwhile`)
console.log(formatUs('decide while loading', summarise(during)))
console.log(`event-loop delay while loading: p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(1)} ms`)
const longest = [...stretches].sort((a, b) => b - a)
const p99 = longest[Math.floor(longest.length / 100)] ?? 0
console.log(
  `main-thread CPU between two answers while loading: p99 ${p99.toFixed(1)} ms, longest ${longest
    .slice(0, 3)
    .map((m) => m.toFixed(1))
    .join(', ')} ms (load average ${loadavg()[0]!.toFixed(2)})`,
)
await live.close()
rmSync(small.home, { recursive: true, force: true })

// 4. Gates that cannot match: CPU per decision with 100 and with GATES of them beside the built-in policy.
for (const n of [100, GATES]) {
  const e = await engineWith(unmatchablePolicy(n))
  const runs = [await decideAll(e.engine, calls), await decideAll(e.engine, calls), await decideAll(e.engine, calls)].map((r) => r.cpuUs).sort((a, b) => a - b)
  console.log(
    `decide with ${String(n).padStart(5)} gates that cannot match (${e.engine.policy.allGates().length} in all): CPU ${runs[1]!.toFixed(0)} µs/decision (median of 3 runs of ${CALLS}; ${runs.map((r) => r.toFixed(0)).join(', ')})`,
  )
  await e.engine.close()
  rmSync(e.home, { recursive: true, force: true })
}
