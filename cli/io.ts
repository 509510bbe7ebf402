/**
 * What a command may touch: output streams, the environment and stdin. Injected so commands are
 * testable; only cli/main.ts turns results into an exit code.
 */
import { bannerFor } from '../core/trust/tiers.ts'

export interface CliIo {
  out(text: string): void
  err(text: string): void
  readonly env: NodeJS.ProcessEnv
  /** Reads all of stdin (empty when stdin is a terminal). */
  readStdin(): Promise<string>
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
  async readStdin() {
    if (process.stdin.isTTY) return ''
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  },
}

const RED = '\x1b[1;37;41m'
const YELLOW = '\x1b[1;30;43m'
const RESET = '\x1b[0m'

/** Signer banners (SPEC "Signing and signer modes"): printed by every minting command, never suppressible. */
export function banner(kind: 'unattested' | 'software' | 'totp'): string {
  const { color, text } = bannerFor(kind)!
  return `${color === 'red' ? RED : YELLOW} ${text} ${RESET}`
}
