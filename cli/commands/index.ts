/** Every `svc` subcommand, in help order. Adding a command is one file and one line here. */
import type { Command } from 'commander'
import type { CliIo } from '../io.ts'
import { makeAuthCommand } from './auth.ts'
import { makeDaemonCommand } from './daemon.ts'
import { makeExplainCommand } from './explain.ts'
import { makeFalsePositiveCommand } from './false-positive.ts'
import { makeInstallCommand, makeUninstallCommand } from './install.ts'
import { makeLedgerCommand } from './ledger.ts'
import { makeLogCommand } from './log.ts'
import { makeMcpCommand } from './mcp.ts'
import { makeModeCommand } from './mode.ts'
import { makePolicyCommand } from './policy.ts'
import { makeSessionCommand } from './session.ts'
import { makeSignerCommand } from './signer.ts'

export const commandFactories: readonly ((io: CliIo) => Command)[] = [makeDaemonCommand, makeSessionCommand, makeSignerCommand, makeLedgerCommand, makeModeCommand, makeAuthCommand, makeInstallCommand, makeUninstallCommand, makeMcpCommand, makeExplainCommand, makeFalsePositiveCommand, makeLogCommand, makePolicyCommand]
