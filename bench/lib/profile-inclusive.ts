/**
 * Prints the top inclusive-time entries of a V8 .cpuprofile (a function's own time plus everything it
 * called, each sample counted once per function even under recursion), idle excluded, so the share of
 * the busy main thread a part of the check path costs can be quoted. With a load window (written by
 * bench/check next to its profiles) only the samples taken during the measured load count, and the busy
 * milliseconds per request are printed: start-up no longer hides in the shares.
 * Run: node bench/lib/profile-inclusive.ts <file.cpuprofile> [count] [filter] [window.json]
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}
/** Monotonic microseconds (the clock V8 stamps samples with) and the requests answered in between. */
export interface LoadWindow {
  startUs: number
  endUs: number
  requests: number
}

const [file, count = '60', filter = '', windowFile] = process.argv.slice(2)
if (!file) throw new Error('usage: node bench/lib/profile-inclusive.ts <file.cpuprofile> [count] [filter] [window.json]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const window = windowFile ? (JSON.parse(readFileSync(windowFile, 'utf8')) as LoadWindow) : undefined
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const root = `${process.cwd()}/`
const keyOf = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'}  ${n.callFrame.url.replace(/^file:\/\//, '').replace(root, '')}:${n.callFrame.lineNumber + 1}`

const inclusive = new Map<string, number>()
let busy = 0
let at = profile.startTime
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0
  at += dt
  if (window && (at < window.startUs || at > window.endUs)) return
  if (byId.get(id)!.callFrame.functionName === '(idle)') return
  busy += dt
  const seen = new Set<string>()
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const key = keyOf(byId.get(cur)!)
    if (seen.has(key)) continue
    seen.add(key)
    inclusive.set(key, (inclusive.get(key) ?? 0) + dt)
  }
})
const perRequest = window ? `  over ${window.requests} requests: ${(busy / 1000 / window.requests).toFixed(3)} busy ms per request` : ''
console.log(`busy ${(busy / 1000).toFixed(0)} ms${window ? ` in the load window of ${((window.endUs - window.startUs) / 1e6).toFixed(1)} s` : ''}${perRequest}`)
const top = [...inclusive]
  .filter(([k]) => k.includes(filter))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(count))
for (const [key, us] of top) console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`)
