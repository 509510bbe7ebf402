/**
 * `svc mcp wrap [server]` and `svc mcp unwrap [server]` (also `svc install --mcp`): run the user's stdio MCP
 * servers through `svc mcp-proxy` in every harness config that defines them (Claude Code `~/.claude.json` and
 * `.mcp.json`, Codex `config.toml`, Gemini CLI `settings.json`, Cursor `mcp.json`, Copilot CLI `mcp-config.json`,
 * OpenCode's argv `command` arrays in `opencode.json(c)`: whatever each harness's `mcp` locations name), with the hook installer's
 * guarantees: the diff first, a question unless `--yes`, every change checked before any file is written,
 * atomic writes, comments and layout kept, byte-exact unwrap, and a second wrap changing nothing. `env` and `cwd`
 * stay in the entry, so the harness starts the proxy (and so the server) with them.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Command } from 'commander'
import writeFileAtomic from 'write-file-atomic'
import type { CliIo } from '../io.ts'
import { PROJECT_ROOT, svcHome, userHomeOf } from '../paths.ts'
import { findRepoRoot, mcpConfigFiles, readWrapManifest, writeWrapManifest } from './files.ts'
import { planUnwrap, planWrap, type FileChange } from './plan.ts'

export interface WrapOptions {
  readonly yes?: boolean
  readonly dryRun?: boolean
  readonly repo?: string
}

/** The command a wrapped entry runs: this package's svc. */
export const SVC_COMMAND = join(PROJECT_ROOT, 'cli', 'svc.sh')

function write(changes: readonly FileChange[]): void {
  for (const c of changes) writeFileAtomic.sync(c.path, c.after)
}

/** Plans, shows, asks and applies a wrap or unwrap; returns the number of servers changed. */
export async function runWrap(io: CliIo, mode: 'wrap' | 'unwrap', server: string | undefined, opts: WrapOptions, confirm: (question: string) => Promise<boolean>): Promise<number> {
  const home = svcHome(io.env)
  const files = mcpConfigFiles(userHomeOf(io.env), opts.repo ?? findRepoRoot(process.cwd()), io.env)
  const manifest = readWrapManifest(home)
  const changes = mode === 'wrap' ? planWrap(files, SVC_COMMAND, server) : planUnwrap(files, manifest, server)
  const count = changes.reduce((n, c) => n + c.records.length, 0)
  if (count === 0) {
    io.out(
      mode === 'wrap'
        ? `no MCP server to wrap${server ? ` named "${server}"` : ''} (already wrapped, remote, or not configured); see \`svc mcp list\``
        : `no MCP server svc wrapped${server ? ` named "${server}"` : ''}`,
    )
    return 0
  }
  for (const c of changes) io.out(c.diff)
  if (opts.dryRun) return count
  if (!opts.yes && !(await confirm(`${mode} ${count} MCP server(s) in ${changes.length} file(s)?`))) {
    io.out('nothing changed')
    return 0
  }
  mkdirSync(home, { recursive: true, mode: 0o700 })
  const touched = new Set(changes.flatMap((c) => c.records.map((r) => `${r.file}\u0000${r.pointer.join('\u0000')}`)))
  const kept = manifest.filter((r) => !touched.has(`${r.file}\u0000${r.pointer.join('\u0000')}`))
  if (mode === 'wrap') {
    // The manifest first: a wrap written without its record could not be undone byte for byte.
    writeWrapManifest(home, [...kept, ...changes.flatMap((c) => c.records)])
    write(changes)
  } else {
    write(changes)
    writeWrapManifest(home, kept)
  }
  io.out(`${mode === 'wrap' ? 'wrapped' : 'unwrapped'} ${changes.flatMap((c) => c.records.map((r) => `${r.server} (${r.file})`)).join(', ')}`)
  return count
}

export function wrapCommands(io: CliIo, confirm: (question: string) => Promise<boolean>): Command[] {
  const make = (mode: 'wrap' | 'unwrap', description: string) =>
    new Command(mode)
      .description(description)
      .argument('[server]', 'only this server (default: every one)')
      .option('--repo <dir>', 'repository whose project-level MCP configs are included (default: the git root above the current directory)')
      .option('--dry-run', 'show the diff and change nothing')
      .option('--yes', 'do not ask before writing')
      .action(async (server: string | undefined, opts: WrapOptions) => void (await runWrap(io, mode, server, opts, confirm)))
  return [
    make('wrap', 'run MCP servers through `svc mcp-proxy` in every harness config (diff first; keeps env, cwd and comments)'),
    make('unwrap', 'put back the MCP server entries `svc mcp wrap` changed, byte for byte'),
  ]
}
