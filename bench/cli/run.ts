/**
 * bench/cli: wall-clock time of whole `svc` commands as a user runs them (cli/svc.sh, a fresh Node each time):
 * `svc --help`, `svc status` against a running daemon, `svc explain "<command>"`, `svc hud` (Claude Code runs it
 * for every status-bar refresh), and `svc tail` until its first line (a resumed tail printing an existing decision). Each is run once to warm the
 * V8 compile cache under $SVC_HOME (a first run after install strips TypeScript; later runs do not), then N times.
 * Targets on the 2-core test machine: --help, status and hud under 300 ms, explain under 600 ms, tail's first
 * line under 400 ms (p50).
 * Then the daemon is stopped and started again: start to first answer and the first call of every kind
 * (first-answers.ts).
 * Run: npm run bench:cli   (BENCH_N to change the number of runs per command; BENCH_FIRST_ONLY=1 for only the restart)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg } from 'node:os'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import { summarise } from '../lib/stats.ts'
import { firstAnswers } from './first-answers.ts'

const N = Number(process.env.BENCH_N ?? 15)
const SVC = join(PROJECT_ROOT, 'cli', 'svc.sh')
const home = mkdtempSync(join(tmpdir(), 'svc-bench-cli-'))
const port = 20000 + Math.floor(Math.random() * 20000)
const env = { ...process.env, HOME: home, SVC_HOME: home, SVC_URL: `http://127.0.0.1:${port}`, SVC_ALLOW_UNATTESTED: '1' }

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
const cpuFile = join(home, 'cpu.txt')
const cpu: number[] = []

/** One run, wall clock in milliseconds; its CPU time (user + sys, ms) goes to `cpu` when /usr/bin/time exists. */
function time(args: string[]): number {
  const t0 = process.hrtime.bigint()
  if (TIME) spawnSync(TIME, ['-o', cpuFile, '-f', '%U %S', SVC, ...args], { env, stdio: 'ignore' })
  else spawnSync(SVC, args, { env, stdio: 'ignore' })
  const wall = Number(process.hrtime.bigint() - t0) / 1e6
  if (TIME) {
    const [user, sys] = readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number)
    cpu.push(((user ?? 0) + (sys ?? 0)) * 1000)
  }
  return wall
}

async function waitForDaemon(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await fetch(`${env.SVC_URL}/v1/health`).catch(() => undefined))?.ok) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('daemon did not start')
}

/** Milliseconds from starting `svc tail --after-seq -1 --all` to its first line on stdout; then it is stopped. */
function tailFirstLine(): Promise<number> {
  const t0 = process.hrtime.bigint()
  const child = spawn(SVC, ['tail', '--after-seq', '-1', '--all'], { env, stdio: ['ignore', 'pipe', 'ignore'] })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error('svc tail printed nothing in 10 s'))
    }, 10_000)
    child.on('error', reject)
    child.stdout!.once('data', () => {
      clearTimeout(timer)
      resolve(Number(process.hrtime.bigint() - t0) / 1e6)
      child.kill('SIGINT')
    })
  })
}

async function sequential(n: number, run: () => Promise<number>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push(await run())
  return out
}

const daemon: ChildProcess = spawn(SVC, ['daemon', '--port', String(port)], { env, stdio: 'ignore' })
const firstOnly = process.env.BENCH_FIRST_ONLY === '1'
try {
  await waitForDaemon()
  time(['session', 'create', '--tier', 'unattested'])
  // One recorded decision (a call without a session is denied and recorded) for `svc tail` to print.
  await fetch(`${env.SVC_URL}/v1/gates/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: 'bench', source: 'claude-code', tool: 'Bash', input: { command: 'ls' } }),
  })
  const commands: [string, string[], number][] = firstOnly
    ? []
    : [
        ['svc --help', ['--help'], 300],
        ['svc status', ['status'], 300],
        ['svc explain "git push --force …"', ['explain', 'git push --force origin main'], 600],
        ['svc hud', ['hud'], 300],
      ]
  // Wall clock is what the user waits; CPU time shows the work when other processes share the cores.
  console.log(`svc CLI, ${N} runs each after one warm-up (ms); load average ${loadavg()[0]!.toFixed(1)} on this machine`)
  for (const [label, args, target] of commands) {
    const first = time(args)
    cpu.length = 0
    const runs = Array.from({ length: N }, () => time(args))
    const cpuP50 = cpu.length ? [...cpu].sort((a, b) => a - b)[Math.floor(cpu.length / 2)]! : NaN
    // summarise() takes nanoseconds and reports microseconds: feed it µs to read milliseconds.
    const s = summarise(runs.map((ms) => ms * 1000))
    const fmt = (v: number) => v.toFixed(0).padStart(5)
    console.log(
      `${label.padEnd(34)} first ${fmt(first)}   p50 ${fmt(s.p50)}   p90 ${fmt(s.p90)}   min ${fmt(Math.min(...runs))}   cpu p50 ${fmt(cpuP50)}   target < ${target}${s.p50 < target ? '' : '   over target'}`,
    )
  }
  if (!firstOnly) {
    // `svc tail` never exits: time from spawn to its first line (resuming after seq -1 prints the first leaf at once).
    const tailRuns = await sequential(N + 1, tailFirstLine)
    const t = summarise(tailRuns.slice(1).map((ms) => ms * 1000))
    const fmt = (v: number) => v.toFixed(0).padStart(5)
    console.log(
      `${'svc tail (to its first line)'.padEnd(34)} first ${fmt(tailRuns[0]!)}   p50 ${fmt(t.p50)}   p90 ${fmt(t.p90)}   min ${fmt(Math.min(...tailRuns.slice(1)))}   target < 400${t.p50 < 400 ? '' : '   over target'}`,
    )
  }
  daemon.kill('SIGTERM')
  if (daemon.exitCode === null) await once(daemon, 'exit')
  await firstAnswers(SVC, port, env)
} finally {
  daemon.kill('SIGTERM')
  rmSync(home, { recursive: true, force: true })
}
