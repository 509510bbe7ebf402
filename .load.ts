import autocannon from 'autocannon'
import { readFileSync } from 'node:fs'
import { unattestedSession } from './bench/lib/operator.ts'
const [base, pidS] = process.argv.slice(2)
const pid = Number(pidS)
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024)
const session = await unattestedSession(base!)
const body = (command: string) => JSON.stringify({ session_id: session, source: 'claude-code', tool: 'Bash', input: { command }, cwd: '/tmp' })
const bodies = [body('git status'), body('npm test'), body('rm -rf ~'), body('git commit -m "wip"')]
console.log('before load', rss())
await autocannon({ url: `${base}/v1/gates/check`, connections: 10, duration: 6, method: 'POST', headers: { 'content-type': 'application/json' }, requests: bodies.map((b) => ({ method: 'POST', body: b })) })
const out = [`after load ${rss()}`]
for (let t = 5; t <= 75; t += 5) { await new Promise((r) => setTimeout(r, 5000)); out.push(`${t}s ${rss()}`) }
console.log(out.join(' | '))
