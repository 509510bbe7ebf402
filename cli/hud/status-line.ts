/**
 * The one line `svc hud` prints for Claude Code's `statusLine` (its first stdout line becomes the status bar;
 * ANSI colours are rendered). Weak signer tiers show their banner text in the banner's colour; a daemon that
 * is down says so in red words, so the bar never looks calm while nothing is protected.
 */
import { bannerFor, type SignerKind } from '../../core/types.ts'
import { inert } from '../terminal-text.ts'
import type { DaemonSnapshot } from './snapshot.ts'

const STYLE = { red: '\x1b[1;37;41m', yellow: '\x1b[1;30;43m', green: '\x1b[32m', dim: '\x1b[2m', bold: '\x1b[1m' } as const
const RESET = '\x1b[0m'

type Paint = (style: keyof typeof STYLE, text: string) => string

/** The status line for `snap` (no trailing newline); ANSI only when `colour`. */
export function statusLine(snap: DaemonSnapshot, url: string, colour: boolean): string {
  // Background colours get a space each side in colour (a banner block); plain text gets none.
  const paint: Paint = (style, text) => (!colour ? text : style === 'red' || style === 'yellow' ? `${STYLE[style]} ${text} ${RESET}` : `${STYLE[style]}${text}${RESET}`)
  if (!snap.reachable && snap.timedOut) return `${paint('red', 'svc: daemon not answering')} at ${inert(url)}: tool calls may be denied or NOT checked`
  if (!snap.reachable) return `${paint('red', 'svc: daemon unreachable')} at ${inert(url)}: tool calls are NOT being checked`
  const parts = [`svc ${paint('bold', inert(snap.mode ?? '?'))}`]
  if (snap.mode === 'monitor') parts[0] += ' (not blocking)'
  parts.push(tierText(snap, paint))
  if (snap.counts) {
    const { allow, deny, monitor_alert } = snap.counts
    parts.push(`session ${paint('green', `✓${allow}`)} ${deny > 0 ? paint('red', `✗${deny}`) : `✗${deny}`}${monitor_alert > 0 ? ` !${monitor_alert}` : ''}`)
  }
  if (snap.pendingPins > 0) parts.push(paint('yellow', `${snap.pendingPins} MCP pin change${snap.pendingPins === 1 ? '' : 's'} waiting: svc mcp list`))
  return parts.join(' · ')
}

function tierText(snap: DaemonSnapshot, paint: Paint): string {
  if (snap.sessionState !== 'active' || !snap.session) return paint('red', `${snap.sessionState === 'expired' ? 'session EXPIRED' : 'NO SESSION'}: calls are denied`)
  const banner = bannerFor(snap.session.signer as SignerKind)
  return banner ? paint(banner.color, banner.text) : `signer ${inert(snap.session.signer)}`
}
