/**
 * bench/check: autocannon against POST /v1/gates/check on a real daemon process, next to a bare Fastify
 * echo route measured in the same run; prints throughput, p50/p99 and the ratio.
 * Run: npm run bench:check   (BENCH_SECONDS, BENCH_CONNECTIONS to change the load; BENCH_CPU_PROF=<dir> writes
 * the daemon's --cpu-prof there, summarised by `node bench/lib/profile-top.ts <dir>/*.cpuprofile` (self time)
 * or `node bench/lib/profile-inclusive.ts <profile> 60 '' <dir>/load-window.json` (inclusive, load phase only))
 * The daemon's main-thread CPU per check is printed too: under a shared machine's load it moves far less
 * than throughput does.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import { BENCH_PASSWORD, unattestedSession } from '../lib/operator.ts'
import { mib } from '../lib/stats.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)

function startChild(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    let buf = ''
    child.stdout!.on('data', (b: Buffer) => {
      buf += b
      const m = ready.exec(buf)
      if (m) resolve({ child, line: m[1]! })
    })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)))
  })
}

async function load(url: string, bodies: string[], seconds = SECONDS): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration: seconds, method: 'POST', headers: { 'content-type': 'application/json' }, requests: bodies.map((body) => ({ method: 'POST', body })) })
}

const rssKbOf = (pid: number): number => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0)
/** CPU milliseconds (user + system) the thread `tid` of `pid` has used: the main thread is the one whose tid is the pid. */
function threadCpuMs(pid: number, tid = pid): number {
  const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in clock ticks (USER_HZ = 100)
}

const home = mkdtempSync(join(tmpdir(), 'svc-bench-check-'))
const port = 20000 + Math.floor(Math.random() * 20000)
const PROF_DIR = process.env.BENCH_CPU_PROF
const profArgs = PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROF_DIR] : []
const daemon = await startChild([...profArgs, 'cli/main.ts', 'daemon', '--port', String(port), '--home', home], { SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: BENCH_PASSWORD, SVC_LOG_LEVEL: 'info' }, /"address":"(http:[^"]+)"/)
const echo = await startChild(['bench/check/echo-server.ts'], {}, /(http:\S+)/)
try {
  const base = daemon.line
  await new Promise((r) => setTimeout(r, 1000))
  const idleKb = rssKbOf(daemon.child.pid!)
  const session = await unattestedSession(base)
  const body = (command: string) => JSON.stringify({ session_id: session, source: 'claude-code', tool: 'Bash', input: { command }, cwd: '/tmp' })
  const bodies = [body('git status'), body('npm test'), body('rm -rf ~'), body('git commit -m "wip"')]
  await load(`${echo.line}/echo`, bodies, 1) // warm-up (JIT) for both servers
  await load(`${base}/v1/gates/check`, bodies, 1)
  const baseline = await load(`${echo.line}/echo`, bodies)
  const pid = daemon.child.pid!
  const cpuBefore = threadCpuMs(pid)
  const startUs = Number(process.hrtime.bigint() / 1000n)
  const svc = await load(`${base}/v1/gates/check`, bodies)
  const endUs = Number(process.hrtime.bigint() / 1000n)
  const cpuMs = threadCpuMs(pid) - cpuBefore
  if (PROF_DIR) writeFileSync(join(PROF_DIR, 'load-window.json'), JSON.stringify({ startUs, endUs, requests: svc.requests.total }))
  const rssKb = rssKbOf(daemon.child.pid!)
  const row = (name: string, r: autocannon.Result) =>
    `${name.padEnd(28)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50=${r.latency.p50} ms  p99=${r.latency.p99} ms  errors=${r.errors} non2xx=${r.non2xx}`
  console.log(`svc bench/check — autocannon ${CONNECTIONS} connections × ${SECONDS}s, Node ${process.version}`)
  console.log(row('bare fastify echo', baseline))
  console.log(row('svc POST /v1/gates/check', svc))
  console.log(`daemon main thread: ${cpuMs.toFixed(0)} ms CPU for ${svc.requests.total} checks = ${(cpuMs / svc.requests.total).toFixed(3)} ms per check`)
  console.log(`ratio svc/echo throughput: ${(svc.requests.average / baseline.requests.average).toFixed(3)}   daemon RSS idle: ${mib(idleKb * 1024)}  after load: ${mib(rssKb * 1024)}`)
} finally {
  const exited = new Promise((r) => daemon.child.once('exit', r))
  daemon.child.kill('SIGTERM')
  echo.child.kill('SIGTERM')
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
  rmSync(home, { recursive: true, force: true })
}
