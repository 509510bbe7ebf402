/**
 * Starts a worker thread on one of our TypeScript modules with the process's compile cache. A worker does not
 * inherit `module.enableCompileCache()` from the thread that called it, so without this every worker strips
 * its TypeScript again, which loads Node's type stripper (a WebAssembly module of its own) into the thread:
 * about 17 MiB of RSS for as long as the thread lives (the ledger writer lives as long as the daemon).
 */
import module from 'node:module'
import { dirname } from 'node:path'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/** `new Worker(url, options)`, sharing the process's compile cache when one is on. */
export function startWorker(url: URL, options: WorkerOptions = {}): Worker {
  const cacheDir = module.getCompileCacheDir?.()
  if (!cacheDir) return new Worker(url, options)
  // Written out now so the worker finds what this thread already compiled (its modules are ours too), even on
  // the first start after an install. getCompileCacheDir names a versioned folder inside the directory enabled.
  module.flushCompileCache?.()
  const boot = `import('node:module').then(({ default: m }) => { m.enableCompileCache(${JSON.stringify(dirname(cacheDir))}); return import(${JSON.stringify(url.href)}) })`
  return new Worker(boot, { ...options, eval: true })
}
