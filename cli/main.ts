#!/usr/bin/env node
/**
 * The `svc` CLI entry point. The only place that sets an exit code: 0 ok, 1 error, 2 usage.
 */
import { Command, CommanderError } from 'commander'
import { EngineError, formatEngineError } from '../core/index.ts'
import { commandFactories } from './commands/index.ts'
import { CliError, processIo, type CliIo } from './io.ts'
import { versionLine } from './version.ts'

export function buildProgram(io: CliIo): Command {
  const program = new Command('svc')
    .description('svc — local agent policy control plane')
    .version(versionLine(), '-V, --version', 'print the version and the commit it was built from')
  for (const make of commandFactories) program.addCommand(make(io))
  // Sub-commands added with addCommand do not inherit these settings; every level must throw, not exit.
  const configure = (cmd: Command): void => {
    cmd.exitOverride().configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) }).showHelpAfterError()
    for (const sub of cmd.commands) configure(sub)
  }
  configure(program)
  return program
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync([...argv], { from: 'user' })
    return 0
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2
    if (err instanceof CliError) {
      io.err(`svc: ${err.message}`)
      return err.exitCode
    }
    if (err instanceof EngineError) {
      io.err(`svc: ${formatEngineError(err)}`)
      return 1
    }
    io.err(`svc: ${(err as Error).message ?? String(err)}`)
    return 1
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2))
