/**
 * What a command may touch: output streams, the environment and stdin. Injected so commands are
 * testable; only cli/main.ts turns results into an exit code.
 */
import type { CommandIo } from '../core/index.ts'
import { bannerFor } from '../core/types.ts'
import { createInterface } from 'node:readline/promises'
import { ask, PromptCancelled, stdinText } from './prompt.ts'

/** The core's CommandIo (what a plugin's command gets too), with the process's environment type. */
export interface CliIo extends CommandIo {
  readonly env: NodeJS.ProcessEnv
}

/** An expected failure: printed as `svc: <message>` and exits with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: number
  constructor(message: string, exitCode = 1) {
    super(message)
    this.name = 'CliError'
    this.exitCode = exitCode
  }
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  env: process.env,
  readStdin: stdinText,
  async ask(prompt, opts) {
    try {
      return await ask(prompt, opts)
    } catch (err) {
      if (err instanceof PromptCancelled) throw new CliError(err.message)
      throw err
    }
  },
  get interactive() {
    return process.stdin.isTTY === true
  },
}

/**
 * Asks y/N: typed on a terminal, else answered by `piped` (default: the first line of stdin, so one `y` answers every
 * question of a run), with the question shown on stderr.
 */
export async function confirm(io: CliIo, question: string, piped: () => Promise<string | undefined> = async () => (await io.readStdin()).split(/\r?\n/)[0]): Promise<boolean> {
  const yes = (answer: string | undefined) => /^y(es)?$/i.test(answer?.trim() ?? '')
  if (process.stdin.isTTY && io.interactive) {
    const rl = createInterface({ input: process.stdin, output: process.stderr })
    try {
      return yes(await rl.question(`${question} [y/N] `))
    } finally {
      rl.close()
    }
  }
  io.err(`${question} [y/N]`)
  return yes(await piped())
}

/** A new secret, typed twice on a terminal (a typo would lock the user out), or one piped line. */
export async function askNewSecret(io: CliIo, what: string): Promise<string | undefined> {
  const first = await io.ask(`${what}: `, { hidden: true })
  if (!io.interactive || !first) return first
  if ((await io.ask(`${what} again: `, { hidden: true })) !== first) throw new CliError(`the two ${what}s differ; nothing was changed`)
  return first
}

const RED = '\x1b[1;37;41m'
const YELLOW = '\x1b[1;30;43m'
const RESET = '\x1b[0m'

/** Colour on stderr only when a person sees it: a terminal, and NO_COLOR unset (FORCE_COLOR forces it). */
export function stderrColour(env: NodeJS.ProcessEnv): boolean {
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true
  return process.stderr.isTTY === true && !env.NO_COLOR
}

/**
 * Signer banners (SPEC "Signing and signer modes"): printed by every minting command, never suppressible.
 * In colour on a terminal; plain text (the same words) in logs and pipes, which must carry no ANSI codes.
 */
export function banner(kind: 'unattested' | 'software' | 'totp', colour = stderrColour(process.env)): string {
  const { color, text } = bannerFor(kind)!
  return colour ? `${color === 'red' ? RED : YELLOW} ${text} ${RESET}` : `*** ${text} ***`
}
