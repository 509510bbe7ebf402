/**
 * Where a daemon process's memory goes, for benchmarks: the process is started with `memoryProbeEnv()` (which
 * preloads memory-probe.js), and `memoryOf(pid)` asks it for process.memoryUsage() and reads its smaps_rollup.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mib } from './stats.ts'

const PROBE = fileURLToPath(new URL('./memory-probe.js', import.meta.url))

export interface MemoryBreakdown {
  readonly rss: number
  /** V8's heap (committed: the young generation counts whole once it has grown). */
  readonly heap: number
  readonly heapUsed: number
  readonly youngGeneration: number
  /** Memory V8 is told about outside its heap: WebAssembly instances above all. */
  readonly external: number
  readonly arrayBuffers: number
  /** Pages of mapped files (the node binary's code, shared libraries, SQLite's -shm files). */
  readonly fileBacked: number
  /** Anonymous memory outside the main thread's heap and external: malloc (SQLite caches, the allocator), other threads' isolates. */
  readonly rest: number
  /** Whether Node's TypeScript stripper (a WebAssembly module of its own) was loaded: a cold compile cache. */
  readonly stripperLoaded: boolean
  readonly threads: number
}

/** Environment (NODE_OPTIONS merged) that preloads the probe; `out` is the file it answers into. */
export function memoryProbeEnv(out: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { SVC_MEMORY_PROBE_OUT: out, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${PROBE}`.trim() }
}

/** Asks the probed process `pid` (answering into `out`) for its memory now. */
export async function memoryOf(pid: number, out: string): Promise<MemoryBreakdown> {
  rmSync(out, { force: true })
  process.kill(pid, 'SIGUSR2')
  for (let i = 0; i < 100 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 50))
  await new Promise((r) => setTimeout(r, 50))
  const probe = JSON.parse(readFileSync(out, 'utf8')) as { usage: NodeJS.MemoryUsage; spaces: Record<string, { size: number }>; internal: string[] }
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) * 1024
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const { usage } = probe
  const anon = kb('Anonymous')
  return {
    rss: kb('Rss'),
    heap: usage.heapTotal,
    heapUsed: usage.heapUsed,
    youngGeneration: probe.spaces.new_space?.size ?? 0,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    fileBacked: kb('Rss') - anon,
    rest: Math.max(0, anon - usage.heapTotal - usage.external),
    stripperLoaded: probe.internal.some((m) => m.includes('amaro')),
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0),
  }
}

/** One line: RSS and its parts (external is not all resident: a WebAssembly memory counts whole). */
export function formatMemory(label: string, m: MemoryBreakdown): string {
  return `${label.padEnd(34)} RSS ${mib(m.rss).padStart(9)} = heap ${mib(m.heap)} (used ${mib(m.heapUsed)}, young ${mib(m.youngGeneration)}) + external ${mib(m.external)} (arrayBuffers ${mib(m.arrayBuffers)}) + files ${mib(m.fileBacked)} + rest ${mib(m.rest)}; ${m.threads} threads${m.stripperLoaded ? ', TypeScript stripper loaded' : ''}`
}

/** A probe answer file in `dir`. */
export const probeFile = (dir: string): string => join(dir, 'memory-probe.json')
