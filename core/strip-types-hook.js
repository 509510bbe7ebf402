// Node strips TypeScript types natively, except in files under node_modules
// (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), which is where npm puts an installed svc. There, a synchronous
// module hook strips this package's own .ts files with Node's own stripper (the same transform, line and column
// kept). Importing this module installs the hook in the calling thread: cli/bin.js does for the main thread, and
// core/worker-thread.ts for every worker (a worker does not inherit module hooks, so without it the ledger
// writer of an installed daemon could not load). Plain JavaScript on purpose: it must load before any type
// stripping is possible.
import module from 'node:module'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = new URL('../', import.meta.url).href

if (root.includes('/node_modules/')) {
  // The stripper announces itself as experimental once; that notice is about our install, not the user's command.
  const emitWarning = process.emitWarning
  process.emitWarning = (warning, ...rest) => (String(warning).includes('stripTypeScriptTypes') ? undefined : emitWarning.call(process, warning, ...rest))
  module.registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith(root) || !url.endsWith('.ts') || url.slice(root.length).includes('node_modules/')) return nextLoad(url, context)
      const source = module.stripTypeScriptTypes(readFileSync(fileURLToPath(url), 'utf8'), { mode: 'strip' })
      return { format: 'module', source, shortCircuit: true }
    },
  })
}
