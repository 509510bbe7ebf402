/**
 * The outer jail the harm runner (test/harm/runner.ts) runs in: bubblewrap with no network, no capabilities, uid
 * 1000, the machine read-only, a tmpfs over /tmp, and writable only the scratch copy of the world (bound at the
 * world's own path), the job's output directory and whatever `binds` names (`devBinds`: devices, such as the
 * `/dev/net/tun` Copilot CLI's sandbox needs). Resolves with the runner's results.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Job, RunResult } from './runner.ts'

export interface JailRun {
  /** The suite's scratch directory: the jail's copy of the world and its output go under it. */
  readonly dir: string
  readonly name: string
  /** The whole job but its output file, which lives in the jail's output directory. */
  readonly job: Omit<Job, 'out'>
  /** The repository root (where the runner is) and the node that runs it. */
  readonly root: string
  readonly node: string
  readonly binds?: readonly string[]
  readonly devBinds?: readonly string[]
}

export function runInJail(run: JailRun): Promise<RunResult[]> {
  const scratch = join(run.dir, `jail-${run.name}`)
  const out = join(run.dir, `out-${run.name}`)
  mkdirSync(scratch, { recursive: true })
  mkdirSync(out, { recursive: true })
  const job: Job = { ...run.job, out: join(out, 'results.json') }
  writeFileSync(join(out, 'job.json'), JSON.stringify(job))
  // The host's /proc: sandbox-runtime's bubblewrap cannot mount proc under a jail's own, and it finds its namespaces
  // by pid in /proc. Each command gets a pid namespace of its own (the runner's inner bubblewrap, or the sandbox's).
  // prettier-ignore
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-user',
    '--uid',
    '1000',
    '--gid',
    '1000',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    ...(run.devBinds ?? []).flatMap((b) => ['--dev-bind', b, b]),
    '--bind',
    '/proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--bind',
    scratch,
    job.root,
    '--ro-bind',
    job.pristine,
    job.pristine,
    '--bind',
    out,
    out,
    ...(run.binds ?? []).flatMap((b) => ['--bind', b, b]),
    '--chdir',
    run.root,
    run.node,
    join(run.root, 'test/harm/runner.ts'),
    join(out, 'job.json'),
  ]
  const trace = process.env.SVC_HARM_TRACE ? { SVC_HARM_TRACE: '1' } : {}
  return new Promise((resolve, reject) => {
    const child = spawn('bwrap', args, { env: { PATH: '/usr/local/bin:/usr/bin:/bin', ...trace }, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d) => {
      err += d
      if (process.env.SVC_HARM_TRACE) process.stderr.write(`[${run.name}] ${d}`)
    })
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`jail ${run.name} exited ${code}: ${err.slice(-2000)}`))
      resolve(JSON.parse(readFileSync(job.out, 'utf8')) as RunResult[])
    })
  })
}
