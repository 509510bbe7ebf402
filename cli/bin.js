// The `svc` entry that cli/svc.sh runs. Plain JavaScript on purpose: it must load before any type stripping is
// possible (core/strip-types-hook.js makes that possible for an svc installed under node_modules).
import module from 'node:module'
import { existsSync, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
// An installed svc (under node_modules) needs a hook to strip its own TypeScript: see that module.
import '../core/strip-types-hook.js'

// V8's compile cache also keeps stripped TypeScript: a warm start skips the stripper entirely (~150 ms for a
// command, ~750 ms for the daemon, which loads every route). It lives under $SVC_HOME, which the self-protection
// gates keep agents out of: a cache in a shared temp directory would be code another process could plant. Only
// once the home exists (`svc --help` or `svc install --dry-run` must not create it). NODE_COMPILE_CACHE, when the
// user sets it, wins (Node enables it before this line; the test suite shares one across its many processes).
// `svc daemon` creates its home anyway (0700, as daemon/start.ts does), so it creates it first: its first start
// fills the cache, which its ledger writer thread then reads instead of stripping the same TypeScript again, and
// the second start (every restart) is warm.
const home = resolve(homeFlag(process.argv.slice(2)) || process.env.SVC_HOME || join(homedir(), '.svc'))
if (!existsSync(home) && startsDaemon(process.argv.slice(2))) {
  try {
    // Only the home is closed (0700); parents it creates keep the usual mode, so a daemon that drops to its own
    // user (`--user`) can still pass through them.
    mkdirSync(dirname(home), { recursive: true })
    mkdirSync(home, { mode: 0o700 })
  } catch {
    // The daemon reports a home it cannot create; this only loses the cache.
  }
}
if (existsSync(home)) module.enableCompileCache?.(join(home, 'cache', 'node-compile'))

/** `svc daemon …` that will run the daemon (not its help). */
function startsDaemon(args) {
  return args[0] === 'daemon' && !args.some((a) => a === '--help' || a === '-h')
}

/** The value of a `--home <dir>` / `--home=<dir>` option (the commands' own flag wins over $SVC_HOME, as in cli/paths.ts). */
function homeFlag(args) {
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    if (args[i] === '--home') return args[i + 1]
    if (args[i].startsWith('--home=')) return args[i].slice('--home='.length)
  }
  return undefined
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
