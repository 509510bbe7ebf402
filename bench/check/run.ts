/**
 * bench/check: autocannon against POST /v1/gates/check on a real daemon process (started as users start it:
 * cli/svc.sh daemon), next to a bare Fastify echo route measured in the same run; prints throughput, p50/p99,
 * the ratio, the daemon's CPU per check, the latency of the first check after start, and where its memory goes
 * (idle after a cold start, idle after a warm one, after the load).
 * Run: npm run bench:check   (BENCH_SECONDS, BENCH_CONNECTIONS to change the load; BENCH_CPU_PROF=<dir> writes
 * the daemon's --cpu-prof there, summarised by `node bench/lib/profile-top.ts <dir>/*.cpuprofile` (self time)
 * or `node bench/lib/profile-inclusive.ts <profile> 60 '' <dir>/load-window.json` (inclusive, load phase only))
 * The daemon's main-thread CPU per check is printed too: under a shared machine's load it moves far less
 * than throughput does.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import { formatMemory, memoryOf, memoryProbeEnv, probeFile } from '../lib/memory.ts'
import { BENCH_PASSWORD, unattestedSession } from '../lib/operator.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)

function startChild(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    let buf = ''
    child.stdout!.on('data', (b: Buffer) => {
      buf += b
      const m = ready.exec(buf)
      if (m) resolve({ child, line: m[1]! })
    })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)))
  })
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
}

async function load(url: string, bodies: string[], seconds = SECONDS): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: bodies.map((body) => ({ method: 'POST', body })),
  })
}

/** CPU milliseconds (user + system) used by the process `pid` (every thread), or by its thread `tid` (the main thread's tid is the pid). */
function cpuMsOf(pid: number, tid?: number): number {
  const fields = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in clock ticks (USER_HZ = 100)
}

/** CPU milliseconds per thread name (`comm`: the main thread, workers, V8 and libuv helpers) of process `pid`. */
function cpuMsByThread(pid: number): Map<string, number> {
  const byName = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() + (tid === String(pid) ? ' (main)' : '')
      byName.set(name, (byName.get(name) ?? 0) + cpuMsOf(pid, Number(tid)))
    } catch {} // a thread that ended between the listing and the read
  }
  return byName
}

const home = mkdtempSync(join(tmpdir(), 'svc-bench-check-'))
const probe = probeFile(home)
const port = 20000 + Math.floor(Math.random() * 20000)
const PROF_DIR = process.env.BENCH_CPU_PROF
const nodeOptions = PROF_DIR ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${PROF_DIR}` } : {}
// Only the measured (warm) daemon is profiled.
const daemonEnv = (profiled: boolean) => ({
  SVC_HOME: home,
  SVC_ALLOW_UNATTESTED: '1',
  SVC_ADMIN_PASSWORD: BENCH_PASSWORD,
  SVC_LOG_LEVEL: 'info',
  ...memoryProbeEnv(probe, { ...process.env, ...(profiled ? nodeOptions : {}) }),
})
const startSvc = (profiled: boolean) =>
  startChild(join(PROJECT_ROOT, 'cli/svc.sh'), ['daemon', '--port', String(port), '--home', home], daemonEnv(profiled), /"address":"(http:[^"]+)"/)
const settle = () => new Promise((r) => setTimeout(r, 1000))

// A cold start (an empty compile cache: the first start after an install or upgrade), then a warm one.
const cold = await startSvc(false)
await settle()
const coldIdle = await memoryOf(cold.child.pid!, probe)
await stop(cold.child)
const daemon = await startSvc(true)
const echo = await startChild(process.execPath, ['bench/check/echo-server.ts'], {}, /(http:\S+)/)
try {
  const base = daemon.line
  const pid = daemon.child.pid!
  await settle()
  const idle = await memoryOf(pid, probe)
  const session = await unattestedSession(base)
  const body = (command: string) => JSON.stringify({ session_id: session, source: 'claude-code', tool: 'Bash', input: { command }, cwd: '/tmp' })
  const bodies = [body('git status'), body('npm test'), body('rm -rf ~'), body('git commit -m "wip"')]
  const timeCheck = async (command: string) => {
    const t = performance.now()
    await (await fetch(`${base}/v1/gates/check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(command) })).text()
    return performance.now() - t
  }
  const first = await timeCheck('python3 -c "import os; os.remove(\'x\')"')
  const second = await timeCheck("node -e \"require('fs').rmSync('y')\"")
  await load(`${echo.line}/echo`, bodies, 1) // warm-up (JIT) for both servers
  await load(`${base}/v1/gates/check`, bodies, 1)
  const echoBefore = cpuMsOf(echo.child.pid!)
  const baseline = await load(`${echo.line}/echo`, bodies)
  const echoMs = cpuMsOf(echo.child.pid!) - echoBefore
  const cpuBefore = cpuMsOf(pid)
  const mainBefore = cpuMsOf(pid, pid)
  const threadsBefore = cpuMsByThread(pid)
  const startUs = Number(process.hrtime.bigint() / 1000n)
  const svc = await load(`${base}/v1/gates/check`, bodies)
  const endUs = Number(process.hrtime.bigint() / 1000n)
  const cpuMs = cpuMsOf(pid) - cpuBefore
  const mainMs = cpuMsOf(pid, pid) - mainBefore
  const threads = [...cpuMsByThread(pid)]
    .map(([name, ms]) => [name, ms - (threadsBefore.get(name) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
  if (PROF_DIR) writeFileSync(join(PROF_DIR, 'load-window.json'), JSON.stringify({ startUs, endUs, requests: svc.requests.total }))
  const loaded = await memoryOf(pid, probe)
  const row = (name: string, r: autocannon.Result) =>
    `${name.padEnd(28)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50=${r.latency.p50} ms  p99=${r.latency.p99} ms  errors=${r.errors} non2xx=${r.non2xx}`
  console.log(`svc bench/check — autocannon ${CONNECTIONS} connections × ${SECONDS}s, Node ${process.version}`)
  console.log(row('bare fastify echo', baseline))
  console.log(row('svc POST /v1/gates/check', svc))
  console.log(
    `daemon main thread: ${mainMs.toFixed(0)} ms CPU for ${svc.requests.total} checks = ${(mainMs / svc.requests.total).toFixed(3)} ms per check; all threads ${(cpuMs / svc.requests.total).toFixed(3)} ms per check`,
  )
  console.log(`bare echo server: ${(echoMs / baseline.requests.total).toFixed(3)} ms CPU per request, all threads`)
  console.log(`daemon CPU per check by thread: ${threads.map(([name, ms]) => `${name} ${(ms / svc.requests.total).toFixed(3)} ms`).join(', ')}`)
  console.log(`ratio svc/echo throughput: ${(svc.requests.average / baseline.requests.average).toFixed(3)}`)
  console.log(`first check after start: ${first.toFixed(1)} ms (python inline code), second ${second.toFixed(1)} ms (node inline code)`)
  console.log(formatMemory('daemon idle, cold start', coldIdle))
  console.log(formatMemory('daemon idle, warm start', idle))
  console.log(formatMemory('daemon after load', loaded))
  console.log(`daemon RSS idle: ${(idle.rss / 2 ** 20).toFixed(1)} MiB  after load: ${(loaded.rss / 2 ** 20).toFixed(1)} MiB`)
} finally {
  await stop(daemon.child)
  echo.child.kill('SIGTERM')
  rmSync(home, { recursive: true, force: true })
}
