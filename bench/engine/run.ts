/**
 * bench/engine: engine-only decision latency over the built-in policy with every shipped pack on (10k mixed
 * calls), without the ledger; then the full check path (decision + durable ledger append) for comparison.
 * Run: npm run bench:engine
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { parse } from 'yaml'
import { SHIPPED_POLICIES_DIR } from '../../cli/paths.ts'
import { allPlugins } from '../../cli/plugins.ts'
import { createEngine } from '../../core/index.ts'
import { analyzeCommand, loadBashParser, loadCodeParsers } from '../../plugins/shell-analysis/index.ts'
import { createCorpusWorld, loadCorpus, type CorpusCase } from '../../test/corpus/harness.ts'
import { mixedCalls } from '../lib/calls.ts'
import { meanCandidates, packsInForce } from '../lib/packs.ts'
import { formatUs, mib, summarise } from '../lib/stats.ts'

const CALLS = Number(process.env.BENCH_CALLS ?? 10_000)

/** The everyday corpus's commands (test/corpus/everyday/*.yaml). */
function loadEveryday(): string[] {
  const dir = new URL('../../test/corpus/everyday/', import.meta.url).pathname
  return ['tldr.yaml', 'ci.yaml'].flatMap((f) => (parse(readFileSync(join(dir, f), 'utf8')) as { cmd: string }[]).map((c) => c.cmd))
}
const home = mkdtempSync(join(tmpdir(), 'svc-bench-'))
const engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
const calls = mixedCalls(session.id, CALLS)
const packs = packsInForce(engine, SHIPPED_POLICIES_DIR)

for (const c of calls.slice(0, 1000)) await engine.decide(c, session) // warm-up (JIT, caches)

const candidates = await meanCandidates(engine, calls.slice(0, 200), session)
const decide: number[] = []
let denies = 0
for (const c of calls) {
  const t = process.hrtime.bigint()
  const { decision } = await engine.decide(c, session)
  decide.push(Number(process.hrtime.bigint() - t))
  if (decision.verdict === 'deny') denies++
}
// CPU time of this process per decide (the figure that holds on a machine shared with other work), in a pass of its
// own: reading it is a syscall, and one beside each timed call doubled the wall-clock p50 here (the kernel's
// page-table isolation flushes the TLB on every syscall, and the next decide starts cold).
const decideCpu: number[] = []
for (const c of calls) {
  const cpu = process.cpuUsage()
  await engine.decide(c, session)
  const used = process.cpuUsage(cpu)
  decideCpu.push((used.user + used.system) * 1000)
}

const check: number[] = []
for (const c of calls.slice(0, Math.min(CALLS, 2000))) {
  const t = process.hrtime.bigint()
  await engine.check(c)
  check.push(Number(process.hrtime.bigint() - t))
}

console.log(`svc bench/engine — ${packs}, ${CALLS} mixed calls (${denies} denied), Node ${process.version}`)
console.log(`gates evaluated per call (index candidates): ${candidates.toFixed(1)} on average`)
console.log(formatUs('decide (engine only)', summarise(decide)))
console.log(formatUs('  same, CPU time per decide', summarise(decideCpu)))
console.log(formatUs('check (decide + durable ledger)', summarise(check)))
// Shell analysis cost per call, over every command of the bypass and everyday corpora (test/corpus).
const parser = await loadBashParser()
const corpus = (['deny', 'allow'] as const).flatMap((d) => loadCorpus(d).flatMap((f) => f.cases.map((c) => ({ cmd: c.cmd, hostile: c.rule === 'analysis' }))))
const ordinary = corpus.filter((c) => c.cmd !== undefined && !c.hostile).map((c) => c.cmd as string)
const hostile = corpus.filter((c) => c.cmd !== undefined && c.hostile).map((c) => c.cmd as string)
const codeParsers = await loadCodeParsers()
const analyse = (cmd: string) => analyzeCommand(cmd, { parser, codeParsers, home: '/home/dev', cwd: '/home/dev/proj' })
for (let i = 0; i < 3; i++) ordinary.forEach(analyse) // warm-up
const analysis: number[] = []
for (let round = 0; round < 10; round++) {
  for (const cmd of ordinary) {
    const t = process.hrtime.bigint()
    analyse(cmd)
    analysis.push(Number(process.hrtime.bigint() - t))
  }
}
const budget: number[] = []
for (const cmd of hostile) {
  const t = process.hrtime.bigint()
  const result = analyse(cmd)
  budget.push(Number(process.hrtime.bigint() - t))
  if (!result.error) throw new Error(`hostile corpus case was not refused: ${cmd.slice(0, 60)}`)
}
console.log(formatUs(`shell analysis (${ordinary.length} corpus cmds)`, summarise(analysis)))
console.log(formatUs(`hostile input (${hostile.length}, refused)`, summarise(budget)))

// decide (engine only) over the grown corpus: every bypass and must-allow case and the everyday corpus
// (tldr pages, CI steps), in the corpus world (a governed home with keys, links and planted scripts).
const world = await createCorpusWorld()
const grown: CorpusCase[] = [...(['deny', 'allow'] as const).flatMap((d) => loadCorpus(d).flatMap((f) => f.cases)), ...loadEveryday().map((cmd) => ({ cmd }))]
for (const c of grown.slice(0, 2000)) await world.decide(c) // warm-up
const grownDecide: number[] = []
const grownCpu: number[] = []
let grownDenied = 0
for (let round = 0; round < 3; round++) {
  for (const c of grown) {
    const t = process.hrtime.bigint()
    const { decision } = await world.decide(c)
    grownDecide.push(Number(process.hrtime.bigint() - t))
    if (round === 0 && decision.verdict === 'deny') grownDenied++
  }
}
// CPU time in a pass of its own, as above.
for (const c of grown) {
  const cpu = process.cpuUsage()
  await world.decide(c)
  const used = process.cpuUsage(cpu)
  grownCpu.push((used.user + used.system) * 1000)
}
console.log(formatUs(`decide over the grown corpus (${grown.length} calls, ${grownDenied} denied)`, summarise(grownDecide)))
console.log(formatUs(`  same, CPU time per decide`, summarise(grownCpu)))
await world.close()

console.log(`rss ${mib(process.memoryUsage().rss)}  heapUsed ${mib(process.memoryUsage().heapUsed)}`)
await engine.close()
rmSync(home, { recursive: true, force: true })
