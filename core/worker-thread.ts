/**
 * Starts a worker thread on one of our TypeScript modules the way the main thread runs: with the strip hook an
 * installed svc needs (module hooks are per thread: a worker of an svc under node_modules could not load its
 * own .ts without it) and with the process's compile cache. A worker does not inherit
 * `module.enableCompileCache()` either, so without it every worker strips its TypeScript again, which loads
 * Node's type stripper (a WebAssembly module of its own): about 17 MiB of RSS for as long as the thread lives
 * (the ledger writer lives as long as the daemon).
 */
import module from 'node:module'
import { dirname } from 'node:path'
import { Worker, type WorkerOptions } from 'node:worker_threads'

const STRIP_HOOK = new URL('./strip-types-hook.js', import.meta.url).href

/** `new Worker(url, options)` with the strip hook, sharing the process's compile cache when one is on. */
export function startWorker(url: URL, options: WorkerOptions = {}): Worker {
  const cacheDir = module.getCompileCacheDir?.()
  // Written out now so the worker finds what this thread already compiled (its modules are ours too), even on
  // the first start after an install. getCompileCacheDir names a versioned folder inside the directory enabled.
  if (cacheDir) module.flushCompileCache?.()
  const cache = cacheDir ? `m.enableCompileCache(${JSON.stringify(dirname(cacheDir))}); ` : ''
  const boot = `import('node:module').then(({ default: m }) => { ${cache}return import(${JSON.stringify(STRIP_HOOK)}) }).then(() => import(${JSON.stringify(url.href)}))`
  return new Worker(boot, { ...options, eval: true })
}
