/**
 * What an idle daemon keeps in memory (bench/check prints the figures): OpenTelemetry loads only when an export
 * is configured (SVC_OTLP_ENDPOINT), and its ledger writer thread shares the process's compile cache, so it
 * does not load Node's TypeScript stripper (a WebAssembly module of its own, ~17 MiB per thread); cli/svc.sh
 * gives the daemon process its V8 memory flags; the inline-code grammars (~9 MiB) load when code of their
 * language is first analysed; `svc daemon` gives back what starting it left behind once it is quiet (idle-gc.ts).
 * What a start loads is what it costs (bench/daemon-start): a restarted daemon loads no other command, no OpenAPI
 * generator, no YAML (the parse cache has the shipped packs) and no bundle or signer library until one is used,
 * and an installed svc strips its TypeScript once.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { collectWhenIdle } from '../cli/daemon/idle-gc.ts'
import { spawnDaemon } from './helpers/child-daemon.ts'
import { startDaemonProcess } from './helpers/daemon-process.ts'
import { tempDir } from './helpers/daemon.ts'
import { waitFor } from './helpers/wait.ts'

const url = (path: string) => JSON.stringify(pathToFileURL(join(PROJECT_ROOT, path)).href)

// Starts a daemon in a fresh process (port 0) and reports every module the main thread resolved and the
// tree-sitter grammars instantiated (by their exports, however they are loaded), idle and after one check
// of inline Python.
const DAEMON_PROBE = `
import module from 'node:module'
import pino from 'pino'
const seen = new Set()
module.registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r } })
const grammars = new Set()
const note = (instance) => { for (const name of Object.keys(instance.exports)) if (/^tree_sitter_[a-z]+$/.test(name)) grammars.add(name) }
const { Instance, instantiate } = WebAssembly
WebAssembly.Instance = new Proxy(Instance, { construct(target, args) { const instance = Reflect.construct(target, args); note(instance); return instance } })
WebAssembly.instantiate = async (...args) => { const r = await instantiate(...args); note(r.instance ?? r); return r }
const { startSvcDaemon } = await import(${url('cli/start-daemon.ts')})
const env = { SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', HOME: process.env.HOME }
const daemon = await startSvcDaemon({ home: process.env.SVC_HOME, port: 0, env, log: pino({ level: 'silent' }) })
const idle = [...grammars].sort()
await daemon.engine.decide({ sessionId: 'probe', source: 'claude-code', tool: 'Bash', input: { command: 'python3 -c "import os"' }, cwd: '/tmp' })
process.stdout.write(JSON.stringify({ modules: [...seen], grammars: { idle, afterPython: [...grammars].sort() } }) + '\\n')
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

// As WORKER_PROBE, over a copy of the modules under node_modules (where svc's own strip hook strips its TypeScript):
// also reports whether the main thread loaded the stripper.
const INSTALLED_PROBE = `
import module from 'node:module'
module.enableCompileCache(process.env.CACHE)
const root = process.env.ROOT
await import(root + 'core/strip-types-hook.js')
const { startWorker } = await import(root + 'core/worker-thread.ts')
await import(root + 'test/fixtures/worker-thread/report-stripper.ts')
const { once } = await import('node:events')
const worker = startWorker(new URL(root + 'test/fixtures/worker-thread/report-stripper.ts'), { workerData: { answer: 42 } })
const [reply] = await once(worker, 'message')
await worker.terminate()
process.stdout.write(JSON.stringify({ ...reply, main: process.moduleLoadList.some((m) => m.includes('amaro')) }))
`

// Preloaded into `svc daemon` (NODE_OPTIONS=--import): at exit, every module the main thread resolved.
const RESOLVE_PROBE = `
import module from 'node:module'
import { writeFileSync } from 'node:fs'
import { isMainThread } from 'node:worker_threads'
const seen = new Set()
module.registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r } })
if (isMainThread) process.on('exit', () => writeFileSync(process.env.SVC_MODULES_OUT, JSON.stringify([...seen])))
`

/** The memory probe's answer, or undefined while the file is still being written. */
function parsed(text: string): { spaces: Record<string, { size: number }> } | undefined {
  try {
    return JSON.parse(text) as { spaces: Record<string, { size: number }> }
  } catch {
    return undefined
  }
}

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
    writeFileSync(
      fake,
      `#!/bin/sh\nif [ "$1" = -p ]; then exec ${JSON.stringify(process.execPath)} "$@"; fi\necho "\${MALLOC_ARENA_MAX:-unset} \${MALLOC_TRIM_THRESHOLD_:-unset} $@"\n`,
    )
    chmodSync(fake, 0o755)
    const argsOf = (...args: string[]) => spawnSync(join(PROJECT_ROOT, 'cli/svc.sh'), args, { env: { PATH: process.env.PATH, SVC_NODE: fake }, encoding: 'utf8' }).stdout.trim()
    expect(argsOf('daemon', '--port', '0')).toBe(`2 131072 --max-semi-space-size=4 --no-wasm-tier-up --no-wasm-dynamic-tiering ${join(PROJECT_ROOT, 'cli/bin.js')} daemon --port 0`)
    expect(argsOf('status')).toBe(`unset unset ${join(PROJECT_ROOT, 'cli/bin.js')} status`)
    // The real Node takes them (a renamed V8 flag would stop every daemon start).
    expect(spawnSync(process.execPath, ['--max-semi-space-size=4', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering', '-e', '0']).status).toBe(0)
  })

  it('no OpenTelemetry module without SVC_OTLP_ENDPOINT; only the bash grammar until inline code needs another', () => {
    const home = tempDir()
    const { modules, grammars } = JSON.parse(run(DAEMON_PROBE, { HOME: home, SVC_HOME: join(home, '.svc') })) as {
      modules: string[]
      grammars: { idle: string[]; afterPython: string[] }
    }
    expect(modules.some((u) => u.includes('/core/ledger/ledger.ts'))).toBe(true) // the probe sees the daemon's modules
    expect(modules.filter((u) => u.includes('/node_modules/@opentelemetry/'))).toEqual([])
    expect(grammars).toEqual({ idle: ['tree_sitter_bash'], afterPython: ['tree_sitter_bash', 'tree_sitter_python'] })
  })

  it('a restarted svc daemon loads its own command and what answering needs: no other command, no OpenAPI generator, YAML, bundle or signer libraries', async () => {
    const home = tempDir()
    const probe = join(home, 'resolve-probe.mjs')
    const out = join(home, 'modules.json')
    writeFileSync(probe, RESOLVE_PROBE)
    const env = { HOME: home, SVC_HOME: join(home, '.svc'), SVC_ALLOW_UNATTESTED: '1' }
    // A restart: the first start parsed the shipped policy packs (YAML), the second reads the parse cache.
    expect(await (await startDaemonProcess(env)).stop()).toBe(0)
    const daemon = await startDaemonProcess({ ...env, SVC_MODULES_OUT: out, NODE_OPTIONS: `--import=${probe}` })
    try {
      expect((await fetch(`${daemon.url}/v1/health`)).ok).toBe(true)
    } finally {
      expect(await daemon.stop()).toBe(0)
    }
    const modules = (JSON.parse(readFileSync(out, 'utf8')) as string[]).map((u) => u.replace(pathToFileURL(PROJECT_ROOT).href + '/', ''))
    expect(modules).toContain('core/ledger/ledger.ts') // the probe saw the daemon's modules
    expect(modules.filter((m) => m.startsWith('cli/commands/')).sort()).toEqual([
      'cli/commands/daemon.ts',
      'cli/commands/index.ts',
      'cli/commands/mcp-proxy.ts',
      'cli/commands/table.ts',
    ])
    const packages = ['@fastify/swagger', 'yaml', 'jose', 'tar', 'otplib', 'diff']
    expect(packages.filter((p) => modules.some((m) => m.includes(`/node_modules/${p}/`)))).toEqual([])
  })

  it('collectWhenIdle collects after a quiet look, once per busy spell, never while the event loop is busy', async () => {
    let collected = 0
    // The loop's busy share is scripted: what the machine's load does to a real event loop does not decide this test.
    let share = 0
    const looks = { n: 0 }
    const busyShare = () => {
      looks.n++
      return share
    }
    const idle = collectWhenIdle(pino({ level: 'silent' }), { collect: () => collected++, firstLookMs: 10, lookMs: 20, busyShare })
    const afterLooks = async (n: number) => {
      const until = looks.n + n
      await waitFor(() => looks.n >= until, `${n} more looks`)
    }
    try {
      await waitFor(() => collected === 1, 'the collection after start')
      share = 0.5 // busy: no collection while it lasts
      await afterLooks(5)
      expect(collected).toBe(1)
      share = 0 // quiet again: one collection for the busy spell
      await waitFor(() => collected === 2, 'the collection after the busy spell')
      await afterLooks(5) // quiet looks with nothing owed
      expect(collected).toBe(2)
    } finally {
      idle.stop()
    }
  })

  it('svc daemon gives back what starting it left behind once it is quiet (the young generation shrinks)', async () => {
    const home = tempDir()
    const out = join(home, 'probe.json')
    const cache = process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}
    const daemon = await spawnDaemon(home, {
      ...cache,
      SVC_ALLOW_UNATTESTED: '1',
      SVC_LOG_LEVEL: 'debug',
      SVC_MEMORY_PROBE_OUT: out,
      NODE_OPTIONS: `--import=${join(PROJECT_ROOT, 'bench/lib/memory-probe.js')}`,
    })
    try {
      await waitFor(() => daemon.logs().includes('quiet: memory given back'), 'the collection once the daemon is quiet', 30_000)
      // Starting grows V8's young generation to its limit (8 MiB with svc.sh's flags); the collection shrank it.
      const young = async () => {
        rmSync(out, { force: true })
        daemon.child.kill('SIGUSR2')
        const answer = await waitFor(() => (existsSync(out) ? parsed(readFileSync(out, 'utf8')) : undefined), 'the memory probe')
        return answer.spaces.new_space!.size
      }
      expect(await young()).toBeLessThanOrEqual(2 * 2 ** 20)
    } finally {
      await daemon.stop()
    }
  })

  it('a worker started with startWorker reuses the compile cache: no TypeScript stripper in the thread', () => {
    const cache = tempDir()
    for (const _ of [1, 2]) {
      // The first run fills the cache on the main thread (flushed before the worker starts), so even it is lean.
      const reply = JSON.parse(run(WORKER_PROBE, { CACHE: cache })) as { answer: number; stripper: boolean }
      expect(reply).toEqual({ answer: 42, stripper: false })
    }
  })

  it('an installed svc strips its TypeScript once: the next start, and its worker threads, read the compile cache', () => {
    const pkg = join(tempDir(), 'node_modules', 'svc')
    for (const f of ['core/strip-types-hook.js', 'core/worker-thread.ts', 'test/fixtures/worker-thread/report-stripper.ts']) cpSync(join(PROJECT_ROOT, f), join(pkg, f))
    const cache = tempDir()
    const env = { CACHE: cache, ROOT: pathToFileURL(pkg).href + '/' }
    // The first start strips on the main thread; its worker already reads what the main thread stored.
    expect(JSON.parse(run(INSTALLED_PROBE, env))).toEqual({ answer: 42, stripper: false, main: true })
    expect(JSON.parse(run(INSTALLED_PROBE, env))).toEqual({ answer: 42, stripper: false, main: false })
  })
})
