// Node strips TypeScript types natively, except in files under node_modules
// (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), which is where npm puts an installed svc. There, a synchronous
// module hook strips this package's own .ts files with Node's own stripper (the same transform, line and column
// kept). Importing this module installs the hook in the calling thread: cli/bin.js does for the main thread, and
// core/worker-thread.ts for every worker (a worker does not inherit module hooks, so without it the ledger
// writer of an installed daemon could not load). Plain JavaScript on purpose: it must load before any type
// stripping is possible.
//
// Node keeps what it strips natively in its compile cache; what this hook strips it keeps beside it (a folder in
// the versioned compile cache directory, so a new Node strips again), by the source's SHA-256: an installed
// daemon's restart, and its writer thread, then read JavaScript instead of loading the stripper (a WebAssembly
// module of its own) and stripping every file again. An entry carries the hash of its own text: a damaged one
// is stripped again, never run.
import module from 'node:module'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = new URL('../', import.meta.url).href

if (root.includes('/node_modules/')) {
  // The stripper announces itself as experimental once; that notice is about our install, not the user's command.
  const emitWarning = process.emitWarning
  process.emitWarning = (warning, ...rest) => (String(warning).includes('stripTypeScriptTypes') ? undefined : emitWarning.call(process, warning, ...rest))
  module.registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith(root) || !url.endsWith('.ts') || url.slice(root.length).includes('node_modules/')) return nextLoad(url, context)
      const source = strippedSource(readFileSync(fileURLToPath(url), 'utf8'), module.getCompileCacheDir?.())
      return { format: 'module', source, shortCircuit: true }
    },
  })
}

// Loaded when first needed: a checkout (not under node_modules) imports this module and strips nothing.
const sha256 = (text) => process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex')
const strip = (text) => module.stripTypeScriptTypes(text, { mode: 'strip' })

/**
 * `text` without its types: from `<cacheDir>/svc-strip` when an intact entry for exactly this text is there,
 * else stripped (by `stripper`) and stored, best effort. Without a cache directory, always stripped.
 */
export function strippedSource(text, cacheDir, stripper = strip) {
  if (!cacheDir) return stripper(text)
  const dir = join(cacheDir, 'svc-strip')
  const file = join(dir, `${sha256(text)}.js`)
  try {
    const entry = readFileSync(file, 'utf8')
    const nl = entry.indexOf('\n')
    if (nl > 0 && entry.slice(0, nl) === `// ${sha256(entry.slice(nl + 1))}`) return entry.slice(nl + 1)
  } catch {
    // no entry yet
  }
  const stripped = stripper(text)
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const tmp = `${file}.${process.pid}.${process.getBuiltinModule('node:worker_threads').threadId}.tmp`
    writeFileSync(tmp, `// ${sha256(stripped)}\n${stripped}`, { mode: 0o600 })
    renameSync(tmp, file)
  } catch {
    // a cache that cannot be written only costs the next start
  }
  return stripped
}
