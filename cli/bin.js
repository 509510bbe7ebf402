// The `svc` entry that cli/svc.sh runs. Node strips TypeScript types natively, except in files under node_modules
// (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), which is where npm puts an installed svc. There, a synchronous
// module hook strips this package's own .ts files with Node's own stripper (the same transform, line and column
// kept). Plain JavaScript on purpose: it must load before any type stripping is possible.
import module from 'node:module'
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// V8's compile cache also keeps stripped TypeScript: a warm start skips the stripper entirely (~150 ms for a
// command, ~750 ms for the daemon, which loads every route). It lives under $SVC_HOME, which the self-protection
// gates keep agents out of: a cache in a shared temp directory would be code another process could plant. Only
// once the home exists (`svc --help` or `svc install --dry-run` must not create it). NODE_COMPILE_CACHE, when the
// user sets it, wins (Node enables it before this line; the test suite shares one across its many processes).
const home = process.env.SVC_HOME || join(homedir(), '.svc')
if (existsSync(home)) module.enableCompileCache?.(join(home, 'cache', 'node-compile'))

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

// `svc mcp-proxy` runs once per MCP server a harness starts: straight to the relay, without the command table
// (its help, `svc mcp-proxy --help`, is the table's: cli/commands/mcp-proxy.ts).
if (process.argv[2] === 'mcp-proxy' && !['--help', '-h'].includes(process.argv[3])) {
  const { runProxy } = await import('./mcp-proxy/main.ts')
  // Exits at once when the server does: the harness may keep our stdin open.
  process.exit(await runProxy(process.argv.slice(3)))
} else {
  const { main } = await import('./main.ts')
  process.exitCode = await main(process.argv.slice(2))
}
