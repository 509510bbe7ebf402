/**
 * The grown corpus's slowest decisions (median CPU of 5 rounds each), to find what sets the p99: run under
 * `node --cpu-prof bench/engine/slowest.ts` for a profile of the whole loop.
 * Run: node bench/engine/slowest.ts   (BENCH_TOP: how many to print, default 25)
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { createCorpusWorld, loadCorpus, type CorpusCase } from '../../test/corpus/harness.ts'

const dir = new URL('../../test/corpus/everyday/', import.meta.url).pathname
const everyday = ['tldr.yaml', 'ci.yaml'].flatMap((f) => (parse(readFileSync(join(dir, f), 'utf8')) as { cmd: string }[]).map((c) => ({ cmd: c.cmd })))
const world = await createCorpusWorld()
const grown: CorpusCase[] = [...(['deny', 'allow'] as const).flatMap((d) => loadCorpus(d).flatMap((f) => f.cases)), ...everyday]
for (const c of grown.slice(0, 2000)) await world.decide(c) // warm-up
const cpu = grown.map(() => [] as number[])
for (let round = 0; round < 5; round++) {
  for (const [i, c] of grown.entries()) {
    const t = process.cpuUsage()
    await world.decide(c)
    const used = process.cpuUsage(t)
    cpu[i]!.push(used.user + used.system)
  }
}
const median = cpu.map((s) => [...s].sort((a, b) => a - b)[2]!)
const order = median.map((m, i) => [m, i] as const).sort((a, b) => b[0] - a[0])
const all = [...median].sort((a, b) => a - b)
console.log(`${grown.length} calls: median CPU p50 ${all[Math.floor(all.length / 2)]} µs, p99 ${all[Math.floor(all.length * 0.99)]} µs`)
for (const [m, i] of order.slice(0, Number(process.env.BENCH_TOP ?? 25))) {
  const c = grown[i]!
  console.log(`${String(m).padStart(6)} µs  ${(c.cmd ?? `${c.tool} ${JSON.stringify(c.input)}`).replace(/\s+/g, ' ').slice(0, 140)}`)
}
await world.close()
