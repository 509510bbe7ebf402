/**
 * What an idle daemon keeps in memory (bench/check prints the figures): OpenTelemetry loads only when an export
 * is configured (SVC_OTLP_ENDPOINT), and its ledger writer thread shares the process's compile cache, so it
 * does not load Node's TypeScript stripper (a WebAssembly module of its own, ~17 MiB per thread); cli/svc.sh
 * gives the daemon process its V8 memory flags.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { tempDir } from './helpers/daemon.ts'

const url = (path: string) => JSON.stringify(pathToFileURL(join(PROJECT_ROOT, path)).href)

// Starts a daemon in a fresh process (port 0) and reports every module the main thread resolved.
const DAEMON_PROBE = `
import module from 'node:module'
import pino from 'pino'
const seen = new Set()
module.registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r } })
const { startDaemon } = await import(${url('cli/daemon/start.ts')})
const env = { SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', HOME: process.env.HOME }
const daemon = await startDaemon({ home: process.env.SVC_HOME, port: 0, env, log: pino({ level: 'silent' }) })
process.stdout.write(JSON.stringify([...seen]) + '\\n')
await daemon.close()
`

// Starts a worker on a TypeScript module through startWorker and asks whether the thread loaded the stripper.
const WORKER_PROBE = `
import module from 'node:module'
module.enableCompileCache(process.env.CACHE)
const { startWorker } = await import(${url('core/worker-thread.ts')})
await import(${url('test/fixtures/worker-thread/report-stripper.ts')}) // as the ledger imports its writer's module
const { once } = await import('node:events')
const worker = startWorker(new URL(${url('test/fixtures/worker-thread/report-stripper.ts')}), { workerData: { answer: 42 } })
const [reply] = await once(worker, 'message')
await worker.terminate()
process.stdout.write(JSON.stringify(reply))
`

/** The probe's first line of output (what it saw); throws with everything it said when it has none. */
function run(source: string, env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 60_000 })
  const line = r.stdout.split('\n')[0] ?? ''
  if (!line.startsWith('[') && !line.startsWith('{')) throw new Error(`probe failed (status ${r.status}, signal ${r.signal}): ${r.stdout}${r.stderr}`)
  return line
}

describe('what a daemon keeps in memory', () => {
  it('cli/svc.sh starts the daemon, and only the daemon, with the memory flags bench/check measured', () => {
    // A stand-in node: answers svc.sh's version probe with the real one, otherwise prints the arguments it got.
    const fake = join(tempDir(), 'node')
    writeFileSync(fake, `#!/bin/sh\nif [ "$1" = -p ]; then exec ${JSON.stringify(process.execPath)} "$@"; fi\necho "\${MALLOC_ARENA_MAX:-unset} $@"\n`)
    chmodSync(fake, 0o755)
    const argsOf = (...args: string[]) => spawnSync(join(PROJECT_ROOT, 'cli/svc.sh'), args, { env: { PATH: process.env.PATH, SVC_NODE: fake }, encoding: 'utf8' }).stdout.trim()
    expect(argsOf('daemon', '--port', '0')).toBe(`2 --max-semi-space-size=4 --no-wasm-tier-up ${join(PROJECT_ROOT, 'cli/bin.js')} daemon --port 0`)
    expect(argsOf('status')).toBe(`unset ${join(PROJECT_ROOT, 'cli/bin.js')} status`)
  })

  it('no OpenTelemetry module without SVC_OTLP_ENDPOINT', () => {
    const home = tempDir()
    const seen = JSON.parse(run(DAEMON_PROBE, { HOME: home, SVC_HOME: join(home, '.svc') })) as string[]
    expect(seen.some((u) => u.includes('/core/ledger/ledger.ts'))).toBe(true) // the probe sees the daemon's modules
    expect(seen.filter((u) => u.includes('/node_modules/@opentelemetry/'))).toEqual([])
  })

  it('a worker started with startWorker reuses the compile cache: no TypeScript stripper in the thread', () => {
    const cache = tempDir()
    for (const _ of [1, 2]) {
      // The first run fills the cache on the main thread (flushed before the worker starts), so even it is lean.
      const reply = JSON.parse(run(WORKER_PROBE, { CACHE: cache })) as { answer: number; stripper: boolean }
      expect(reply).toEqual({ answer: 42, stripper: false })
    }
  })
})
