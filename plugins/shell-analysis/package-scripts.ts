/**
 * `npm run NAME`, `npm test`, `pnpm NAME`, `yarn NAME`, `bun run NAME` run a shell line from the nearest
 * package.json (with its `pre`/`post` scripts). An earlier tool call can write that line, so it is read
 * and analysed (best effort, like any script on disk).
 */
import { dirname, join } from 'node:path'
import { instructionsOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import type { AnalysisState } from './state.ts'

const RUNNERS: ReadonlySet<string> = new Set(['npm', 'pnpm', 'yarn', 'bun'])
const RUN_WORDS: ReadonlySet<string> = new Set(['run', 'run-script', 'rum', 'urn'])
const LIFECYCLE: ReadonlySet<string> = new Set(['test', 't', 'tst', 'start', 'stop', 'restart', 'install', 'i', 'ci', 'pack', 'publish', 'version', 'rebuild', 'add'])
/** Subcommands of yarn/pnpm that are not script names. */
const BUILTIN: ReadonlySet<string> = new Set([
  'add',
  'remove',
  'install',
  'i',
  'ci',
  'exec',
  'dlx',
  'x',
  'create',
  'init',
  'config',
  'cache',
  'info',
  'list',
  'ls',
  'outdated',
  'upgrade',
  'update',
  'up',
  'why',
  'link',
  'unlink',
  'publish',
  'login',
  'logout',
  'version',
  'help',
  'audit',
  'import',
  'rebuild',
  'store',
  'patch',
  'workspace',
  'workspaces',
  'set',
  'plugin',
  'node',
  'dedupe',
  'prune',
  'root',
  'bin',
  'global',
  'fetch',
  'env',
  'setup',
  'self-update',
  'licenses',
  'owner',
  'tag',
  'team',
  'whoami',
  'search',
  'view',
  'pkg',
  'doctor',
  'explain',
  'fund',
  'query',
  'org',
  'access',
  'token',
  'profile',
  'hook',
  'ping',
  'edit',
  'docs',
  'bugs',
  'repo',
  'star',
  'stars',
  'unstar',
  'completion',
  'shrinkwrap',
  'sbom',
  'diff',
  'deprecate',
  'dist-tag',
  'uninstall',
  'rm',
  'r',
])

/** The shell lines a package-manager invocation runs from package.json, with their labels. */
export function packageScripts(st: AnalysisState, inv: Invocation, program: string): { label: string; text: string }[] {
  if (!RUNNERS.has(program)) return []
  const shellAt = inv.argv.indexOf('--script-shell')
  // The value of `--script-shell X` (argv index shellAt + 1) is no subcommand.
  const args = inv.argv.slice(1).filter((a, i) => !a.startsWith('-') && i !== shellAt)
  const [first, second] = args
  // Bare `yarn` / `pnpm`/`bun` without a subcommand installs: the install lifecycle runs.
  if (first === undefined) return program === 'npm' ? [] : lifecycleScripts(st, inv, program, 'install')
  let name: string | undefined
  if (RUN_WORDS.has(first)) name = second
  else if (['install', 'i', 'add', 'ci', 'rebuild'].includes(first)) name = 'install'
  else if (LIFECYCLE.has(first) && (program === 'npm' || ['test', 'start', 'stop', 'restart'].includes(first))) name = first === 't' || first === 'tst' ? 'test' : first
  else if (program !== 'npm' && !BUILTIN.has(first)) name = first
  // package.json is read once, by lifecycleScripts (it used to be read here as well).
  return name === undefined ? [] : lifecycleScripts(st, inv, program, name)
}

/** Scripts npm runs around a command (`npm version` runs preversion, version, postversion; publish runs prepack...). */
const LIFECYCLE_SCRIPTS: Readonly<Record<string, readonly string[]>> = {
  install: ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'],
  i: ['preinstall', 'install', 'postinstall', 'prepare'],
  ci: ['preinstall', 'install', 'postinstall', 'prepare'],
  add: ['preinstall', 'install', 'postinstall', 'prepare'],
  rebuild: ['preinstall', 'install', 'postinstall', 'prepare'],
  version: ['preversion', 'version', 'postversion'],
  publish: ['prepublishOnly', 'prepack', 'prepare', 'postpack', 'publish', 'postpublish'],
  pack: ['prepack', 'prepare', 'postpack'],
}

function lifecycleScripts(st: AnalysisState, inv: Invocation, program: string, name: string): { label: string; text: string }[] {
  const scripts = readScripts(st, inv)
  if (!scripts) return []
  // `.npmrc` `script-shell=PROGRAM` runs every script through PROGRAM (a file an earlier call may have planted).
  // So does `--script-shell PROGRAM` (npm_config_script_shell is judged where it is assigned: command-variables.ts).
  const option = inv.argv.flatMap((a, i) =>
    a === '--script-shell' && inv.argv[i + 1] !== undefined ? [inv.argv[i + 1]!] : a.startsWith('--script-shell=') ? [a.slice(15)] : [],
  )[0]
  const shell = option ?? npmrcScriptShell(st, inv)
  const viaShell = shell === undefined ? [] : [{ label: option === undefined ? '.npmrc script-shell' : '--script-shell', text: shell }]
  const names = LIFECYCLE_SCRIPTS[name] ?? [`pre${name}`, name, `post${name}`]
  return [...viaShell, ...names.flatMap((n) => (typeof scripts[n] === 'string' ? [{ label: `${program} run ${n}`, text: scripts[n] as string }] : []))]
}

function readScripts(st: AnalysisState, inv: Invocation): Record<string, unknown> | undefined {
  for (let dir = inv.scope.cwd ?? st.options.cwd ?? '', n = 0; dir !== '' && n < 32; dir = dirname(dir), n++) {
    const text = instructionsOf(st, inv.scope, join(dir, 'package.json'))
    if (text !== undefined) {
      try {
        const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts
        return typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>) : undefined
      } catch {
        return undefined
      }
    }
    if (dirname(dir) === dir) break
  }
  return undefined
}

/** `script-shell` of the project's `.npmrc` (walking up) or the user's `~/.npmrc`. */
function npmrcScriptShell(st: AnalysisState, inv: Invocation): string | undefined {
  const files: string[] = []
  for (let dir = inv.scope.cwd ?? st.options.cwd ?? '', n = 0; dir !== '' && n < 32; dir = dirname(dir), n++) {
    files.push(join(dir, '.npmrc'))
    if (dirname(dir) === dir) break
  }
  files.push(join(st.options.home, '.npmrc'))
  for (const file of files) {
    const m = /^\s*script-shell\s*=\s*(.+?)\s*$/m.exec(instructionsOf(st, inv.scope, file) ?? '')
    if (m) return m[1]!.replace(/^["']|["']$/g, '')
  }
  return undefined
}
