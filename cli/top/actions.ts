/**
 * What `svc top` changes, through the same code as the CLI commands and no logic of its own: starting a
 * false-positive case is `writeCase` (cli/false-positive), accepting a pin is the daemon's operator-only
 * `POST /v1/mcp/pin/accept` with the exact fingerprint shown on screen, and the operator token comes from
 * `operatorToken` (SVC_TOKEN, SVC_ADMIN_PASSWORD, or the password typed at the hidden prompt).
 */
import { join } from 'node:path'
import { writeCase } from '../false-positive/write-case.ts'
import { callDaemon, operatorToken } from '../http.ts'
import type { CliIo } from '../io.ts'
import type { Pin } from './rows.ts'

/** A CliIo whose output lines are collected (to show on screen) and that never prompts on the terminal ink owns. */
export function collectingIo(env: NodeJS.ProcessEnv): { io: CliIo; lines: string[] } {
  const lines: string[] = []
  const io: CliIo = {
    out: (text) => void lines.push(...text.replace(/\n$/, '').split('\n')),
    err: (text) => void lines.push(...text.replace(/\n$/, '').split('\n')),
    env,
    readStdin: async () => '',
    ask: async () => undefined,
    interactive: false,
  }
  return { io, lines }
}

/** True when an operator token can be had without asking (SVC_TOKEN or SVC_ADMIN_PASSWORD set). */
export function operatorCredentialsInEnv(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.SVC_TOKEN || env.SVC_ADMIN_PASSWORD)
}

export async function login(url: string, env: NodeJS.ProcessEnv, password?: string): Promise<string> {
  return operatorToken(url, collectingIo(env).io, password)
}

/** Writes the case directory of decision `seq` under `$SVC_HOME/cases/<seq>`; the lines `svc false-positive` prints. */
export async function startCase(url: string, env: NodeJS.ProcessEnv, home: string, seq: number): Promise<string[]> {
  const { io, lines } = collectingIo(env)
  await writeCase(io, String(seq), { target: 'auto', out: join(home, 'cases', String(seq)), url })
  return lines
}

/** Pins `pin` at the fingerprint the operator saw (never "whatever is waiting now"). */
export async function acceptPin(url: string, token: string, pin: Pin): Promise<string> {
  if (!pin.pending_fingerprint) throw new Error(`MCP server "${pin.server}" has nothing waiting to be accepted`)
  const res = await callDaemon<Pin>(url, '/v1/mcp/pin/accept', { body: { server: pin.server, fingerprint: pin.pending_fingerprint }, token })
  return `pinned ${res.server} at ${res.pinned_fingerprint}`
}
