/**
 * Commands OpenSSH runs on this machine: `ProxyCommand`, `LocalCommand` and `KnownHostsCommand` (through
 * the user's shell), given with `-o` on the command line (`-o ProxyCommand=CMD`, `-oProxyCommand=CMD`,
 * `-o 'ProxyCommand CMD'`) or in a config file named with `-F` (with `Match exec CMD`), plus the programs
 * scp and sftp start instead of ssh (`scp -S PROG`, `sftp -S PROG`, `sftp -D SERVER`). `RemoteCommand`
 * runs on the other side, as the command operand of ssh does (`sshRemoteCommand`); it is analysed too.
 */
import { execString } from './execution.ts'
import { instructionsOf } from './files.ts'
import { PLAIN, type Invocation } from './invocation.ts'
import type { Nested } from './nested-commands.ts'
import type { AnalysisState } from './state.ts'

/** ssh_config keywords whose value is a command (keywords are case-insensitive; `none` disables). */
const COMMAND_KEYWORDS = /^\s*(proxycommand|localcommand|knownhostscommand|remotecommand)(?:\s*=\s*|\s+)(.*?)\s*$/is

/** One command found in an ssh-family argv or config: its text and the argv index it came from. */
export interface SshCommand {
  readonly text: string
  readonly index: number
}

/** The value of a `KEYWORD=VALUE` / `KEYWORD VALUE` option when KEYWORD runs a command. */
function commandOption(option: string): string | undefined {
  const m = COMMAND_KEYWORDS.exec(option)
  const value = m?.[2]?.replace(/^"(.*)"$/s, '$1')
  return value === undefined || value === '' || value.toLowerCase() === 'none' ? undefined : value
}

/** Short options of ssh, scp and sftp that take a value (`-o` among them). */
const VALUE_OPTIONS: Readonly<Record<string, string>> = { ssh: 'BbcDEeFIiJLlmOopQRSWw', scp: 'cDFiJlOoPSX', sftp: 'BbcDFiJlOoPRSsX' }
/** Options whose value is a program the client starts locally. */
const PROGRAM_OPTIONS: Readonly<Record<string, string>> = { ssh: '', scp: 'S', sftp: 'SD' }

/** The local commands of an ssh, scp or sftp argv: `-o` options and the program options, with the `-F` file. */
export function sshOptionCommands(program: 'ssh' | 'scp' | 'sftp', argv: readonly string[]): { commands: SshCommand[]; config?: SshCommand } {
  const commands: SshCommand[] = []
  let config: SshCommand | undefined
  const valued = VALUE_OPTIONS[program]!
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') break
    if (!arg.startsWith('-') || arg.length < 2) continue
    // A cluster of flags may end in an option that takes a value, attached or in the next argument (`-vo X`, `-oX`).
    for (let k = 1; k < arg.length; k++) {
      const letter = arg[k]!
      if (!valued.includes(letter)) continue
      const attached = arg.slice(k + 1)
      const index = attached === '' ? i + 1 : i
      const value = attached === '' ? argv[i + 1] : attached
      if (attached === '') i++
      if (value === undefined) break
      if (letter === 'o') {
        const text = commandOption(value)
        if (text !== undefined) commands.push({ text, index })
      } else if (PROGRAM_OPTIONS[program]!.includes(letter)) commands.push({ text: value, index })
      else if (letter === 'F') config = { text: value, index }
      break
    }
  }
  return { commands, ...(config !== undefined ? { config } : {}) }
}

/** The commands an ssh_config file runs: command keywords, and `Match exec`. `Include` is reported: its files are not read. */
export function sshConfigCommands(text: string): { commands: string[]; includes: boolean } {
  const commands: string[] = []
  let includes = false
  for (const line of text.split('\n')) {
    if (/^\s*include\b/i.test(line)) includes = true
    const command = commandOption(line)
    if (command !== undefined) commands.push(command)
    const match = /^\s*match\b.*?\bexec(?:\s*=\s*|\s+)("(?:[^"\\]|\\.)*"|\S+)/i.exec(line)
    if (match) commands.push(match[1]!.replace(/^"(.*)"$/s, '$1'))
  }
  return { commands, includes }
}

/** Analyses what an ssh, scp or sftp invocation runs locally (its remote command is a nested command: nested-commands.ts). */
export function sshLocalCommands(st: AnalysisState, inv: Invocation, program: 'ssh' | 'scp' | 'sftp'): void {
  const { commands, config } = sshOptionCommands(program, inv.argv)
  for (const c of commands) execString(st, inv, c.text, [inv.info[c.index] ?? PLAIN], `${program} option`)
  if (config === undefined) return
  // A config file named only at run time, or one that includes others, runs commands svc cannot see: fail closed.
  if (inv.info[config.index]?.dynamic) return void st.signals.add('unanalysable_script')
  const text = instructionsOf(st, inv.scope, config.text)
  if (text === undefined) return
  const found = sshConfigCommands(text)
  if (found.includes) st.signals.add('unanalysable_script')
  for (const command of found.commands) execString(st, inv, command, [PLAIN], `${program} -F config`)
}

/** The command ssh runs on the other side: the operands after the destination, through the remote shell. */
export function sshRemoteCommand(argv: readonly string[]): Nested | undefined {
  // OpenSSH keeps reading options after the destination (`ssh host -i KEY cmd`): the command is the first
  // operand after the destination that is not an option or an option's value.
  let i = 1
  let host = false
  for (; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      // `--` ends the options: the destination follows unless it came already.
      i += host ? 1 : 2
      break
    }
    if (!arg.startsWith('-')) {
      if (host) break
      host = true
      continue
    }
    if (arg.length === 2 && VALUE_OPTIONS.ssh!.includes(arg[1]!)) i++
  }
  const commandStart = i
  if (commandStart >= argv.length) return undefined
  const indexes = argv.map((_, k) => k).filter((k) => k >= commandStart)
  return { kind: 'string', text: argv.slice(commandStart).join(' '), exclude: indexes, label: 'ssh' }
}
