/**
 * What every harness's installed hook entries share: the shim command line a command hook runs and the
 * marker that lets the installer recognise (and remove) exactly the entries this control plane wrote.
 */
import type { InstallContext } from '../../harness-contract/index.ts'
import { asRecord } from './payload.ts'

/** The marker argument every installed command carries: `--svc-install=<id>`. */
export const INSTALL_MARKER = '--svc-install='

/** Header that carries the marker on native HTTP hooks. */
export const INSTALL_HEADER = 'X-Svc-Install'

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/**
 * The command line of an installed command hook. `observe` marks post-tool events: the shim never
 * blocks those when the daemon is down (the tool already ran).
 */
export function shimCommand(ctx: InstallContext, harness: string, event: string, observe: boolean): string {
  const words = [ctx.shimPath, harness, event, `--url=${ctx.daemonUrl}`, ...(ctx.hookSocket ? [`--socket=${ctx.hookSocket}`] : []), `${INSTALL_MARKER}${ctx.installId}`]
  if (observe) words.push('--observe')
  if (ctx.failOpen) words.push('--fail-open')
  return words.map(shellQuote).join(' ')
}

/** True when a command string carries our marker for this install id. */
export function commandIsOurs(command: unknown, installId: string): boolean {
  if (typeof command !== 'string') return false
  return command.split(/\s+/).some((word) => word === `${INSTALL_MARKER}${installId}` || word === `'${INSTALL_MARKER}${installId}'`)
}

/** True when a Claude/Codex/Gemini-style matcher group `{hooks: [...]}` holds one of our handlers. */
export function groupIsOurs(group: unknown, installId: string): boolean {
  const hooks = asRecord(group)?.hooks
  if (!Array.isArray(hooks)) return false
  return hooks.some((handler) => {
    const h = asRecord(handler)
    if (!h) return false
    if (commandIsOurs(h.command, installId)) return true
    const headers = asRecord(h.headers)
    return headers?.[INSTALL_HEADER] === installId
  })
}
