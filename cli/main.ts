#!/usr/bin/env node
/**
 * The `svc` CLI entry point. The only place that sets an exit code: 0 ok, 1 error, 2 usage.
 */
import { Command, CommanderError } from 'commander'
import { commands, requestedCommands, type CommandEntry } from './commands/index.ts'
import { runsProxy } from './commands/mcp-proxy.ts'
import { CliError, processIo, type CliIo } from './io.ts'
import { versionLine } from './version.ts'

/** The program for `argv`: every command of the table listed, only the invoked one loaded (see commands/index.ts). */
export async function buildProgram(io: CliIo, argv: readonly string[], table: readonly CommandEntry[] = commands): Promise<Command> {
  const program = new Command('svc')
    .description('svc — local agent policy control plane')
    .version(versionLine(), '-V, --version', 'print the version and the commit it was built from')
  const wanted = requestedCommands(argv)
  for (const entry of table) {
    if (wanted.has(entry.name)) program.addCommand((await entry.load())(io))
    else program.command(entry.name).description(entry.summary)
  }
  // Sub-commands added with addCommand do not inherit these settings; every level must throw, not exit.
  // A usage error prints commander's one line (what was wrong) and where the usage is, not the whole help.
  const configure = (cmd: Command, path: string): void => {
    cmd
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
      .showHelpAfterError(`hint: see \`${path} --help\``)
    for (const sub of cmd.commands) configure(sub, `${path} ${sub.name()}`)
  }
  configure(program, 'svc')
  return program
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  // The relay speaks JSON-RPC on the process's own stdio, not through `io` (cli/bin.js goes there directly).
  if (runsProxy(argv)) return (await import('./mcp-proxy/main.ts')).runProxy(argv.slice(1))
  try {
    await (await buildProgram(io, argv)).parseAsync([...argv], { from: 'user' })
    return 0
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2
    if (err instanceof CliError) {
      io.err(`svc: ${err.message}`)
      return err.exitCode
    }
    // The core's face loads only for a core error (`svc --help` and `svc hud` never load the kernel).
    if (err instanceof Error && err.name === 'EngineError') {
      const { EngineError, formatEngineError } = await import('../core/index.ts')
      if (err instanceof EngineError) {
        io.err(`svc: ${formatEngineError(err)}`)
        return 1
      }
    }
    io.err(`svc: ${(err as Error).message ?? String(err)}`)
    return 1
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2))
  // The relay is done when its server is: the harness may keep our stdin open.
  if (runsProxy(process.argv.slice(2))) process.exit()
}
