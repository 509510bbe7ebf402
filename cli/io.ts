/**
 * What a command may touch: output streams, the environment and stdin. Injected so commands are
 * testable; only cli/main.ts turns results into an exit code.
 */
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
  if (kind === 'unattested') return `${RED} UNATTESTED — LEDGER NOT SIGNED ${RESET}`
  if (kind === 'software') return `${RED} DEV — SOFTWARE SIGNER ${RESET}`
  return `${YELLOW} TOTP-BACKED — MEDIUM ASSURANCE ${RESET}`
}
