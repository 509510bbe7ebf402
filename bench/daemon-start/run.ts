/**
 * bench/daemon-start: what starting `svc daemon` costs, the wait a user has at every start and restart. Spawns
 * `cli/svc.sh daemon --port <free port>` as a user does (no NODE_COMPILE_CACHE inherited, SVC_ALLOW_UNATTESTED=1,
 * no operator password to hash) and times it to the first answer of GET /v1/health: wall clock from spawn, and the
 * process's CPU (user + sys over all its threads, from /proc/<pid>/stat) at that moment and one second later (work
 * a start defers past listening still counts). Cold is the first start in a home that does not exist yet (empty
 * compile and policy caches); warm is the second start in the same home, and a third start shows the steady state
 * of every restart after that. N homes, one after the other.
 * Run: npm run bench:daemon-start   (BENCH_N runs, default 7; BENCH_HOME_EXISTS=1 creates the home before the cold start;
 * BENCH_SVC=<checkout>/cli/svc.sh times another checkout, e.g. a `git worktree` of an older commit)
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../cli/paths.ts'

const N = Number(process.env.BENCH_N ?? 7)
const SVC = process.env.BENCH_SVC ?? join(PROJECT_ROOT, 'cli', 'svc.sh')
const TICK_MS = 10 // USER_HZ is 100 on Linux

interface Sample {
  readonly wall: number
  readonly cpu: number
  readonly cpuSettled: number
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

/** utime + stime of a live process, all threads, in milliseconds. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}

async function start(home: string, userHome: string): Promise<Sample> {
  const port = await freePort()
  const { NODE_COMPILE_CACHE: _, NODE_OPTIONS: __, ...inherited } = process.env
  const env = { ...inherited, HOME: userHome, SVC_HOME: home, SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: '', SVC_LOG_LEVEL: 'warn' }
  const t0 = performance.now()
  // svc.sh execs node: the pid is the daemon's.
  const child = spawn(SVC, ['daemon', '--port', String(port)], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (b: Buffer) => (stderr += b))
  const exited = once(child, 'exit')
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}: ${stderr}`)
      const res = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined)
      if (res?.ok) break
      if (performance.now() - t0 > 30_000) throw new Error(`no health answer in 30 s: ${stderr}`)
      await new Promise((r) => setTimeout(r, 5))
    }
    const wall = performance.now() - t0
    const cpu = cpuMs(child.pid!)
    await new Promise((r) => setTimeout(r, 1000))
    return { wall, cpu, cpuSettled: cpuMs(child.pid!) }
  } finally {
    child.kill('SIGTERM')
    await exited
  }
}

function line(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b)
  const f = (v: number) => v.toFixed(0).padStart(5)
  return `${label.padEnd(26)} min ${f(sorted[0]!)}   median ${f(sorted[Math.floor(sorted.length / 2)]!)}   max ${f(sorted.at(-1)!)}`
}

const cold: Sample[] = []
const warm: Sample[] = []
const third: Sample[] = []
console.log(`${SVC}: daemon start to the first GET /v1/health answer, ${N} homes started three times (ms); load average ${loadavg()[0]!.toFixed(1)}`)
for (let i = 0; i < N; i++) {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-start-'))
  try {
    const home = join(root, '.svc')
    if (process.env.BENCH_HOME_EXISTS === '1') mkdirSync(home, { mode: 0o700 })
    cold.push(await start(home, root))
    warm.push(await start(home, root))
    third.push(await start(home, root))
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}
for (const [name, samples] of [
  ['cold', cold],
  ['warm', warm],
  ['third', third],
] as const) {
  console.log(
    line(
      `${name} wall`,
      samples.map((s) => s.wall),
    ),
  )
  console.log(
    line(
      `${name} cpu at first answer`,
      samples.map((s) => s.cpu),
    ),
  )
  console.log(
    line(
      `${name} cpu 1 s later`,
      samples.map((s) => s.cpuSettled),
    ),
  )
}
console.log(`load average ${loadavg()[0]!.toFixed(1)} at the end`)
