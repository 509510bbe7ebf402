/**
 * Prints the top self-time entries of a V8 .cpuprofile (as written by `node --cpu-prof`), grouped by
 * function and file, so a profile can be quoted in a note.
 * Run: node bench/lib/profile-top.ts <file.cpuprofile> [count]
 */
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

const [file, count = '25'] = process.argv.slice(2)
if (!file) throw new Error('usage: node bench/lib/profile-top.ts <file.cpuprofile> [count]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const self = new Map<string, number>()
let total = 0
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0
  total += dt
  const frame = byId.get(id)!.callFrame
  const url = frame.url.replace(/^file:\/\//, '')
  const where = url ? `${relative(process.cwd(), url)}:${frame.lineNumber + 1}` : ''
  const key = `${frame.functionName || '(anonymous)'}  ${where}`
  self.set(key, (self.get(key) ?? 0) + dt)
})
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count))
console.log(`total sampled ${(total / 1000).toFixed(0)} ms`)
for (const [key, us] of top) console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`)
