/**
 * The daemon's state at a glance, as `svc hud` and the header of `svc top` show it: mode, the current session
 * and its signer tier, the session's verdict counts, MCP servers with a fingerprint waiting for review. Read
 * with a short deadline and never throws: a daemon that is down or slow is a state to show, not an error.
 */
import { callDaemon } from '../http.ts'

export interface DaemonSnapshot {
  readonly reachable: boolean
  /** Why the daemon could not be read (only when not reachable). */
  readonly error?: string
  /** It accepted the connection but did not answer before the deadline (busy or hung, not down). */
  readonly timedOut?: boolean
  readonly mode?: string
  readonly session?: { readonly id: string; readonly state: string; readonly signer: string }
  readonly sessionState: 'active' | 'expired' | 'none'
  readonly counts?: { readonly allow: number; readonly deny: number; readonly monitor_alert: number }
  /** MCP servers whose new (or first) fingerprint waits for an operator's accept. */
  readonly pendingPins: number
}

interface CurrentSession {
  state: 'active' | 'expired' | 'none'
  session?: { session_id: string; signer: string; state: string }
}

interface Insights {
  sessions: { session_id: string; counts: { allow: number; deny: number; monitor_alert: number } }[]
}

export async function daemonSnapshot(url: string, timeoutMs = 1500): Promise<DaemonSnapshot> {
  // One deadline for every request: the line is late by at most `timeoutMs`, however the daemon misbehaves.
  const opts = { timeoutMs, signal: AbortSignal.timeout(timeoutMs) }
  try {
    const [mode, current, pins] = await Promise.all([
      callDaemon<{ mode: string }>(url, '/v1/mode', opts),
      callDaemon<CurrentSession>(url, '/v1/sessions/current', opts),
      callDaemon<{ servers: { pending_fingerprint?: string }[] }>(url, '/v1/mcp/pins', opts),
    ])
    const s = current.session
    const insights = s ? await callDaemon<Insights>(url, `/v1/sessions/insights?session_id=${encodeURIComponent(s.session_id)}`, opts) : undefined
    const counts = insights?.sessions.find((i) => i.session_id === s?.session_id)?.counts
    return {
      reachable: true,
      mode: mode.mode,
      session: s ? { id: s.session_id, state: s.state, signer: s.signer } : undefined,
      sessionState: current.state,
      counts: counts ? { allow: counts.allow, deny: counts.deny, monitor_alert: counts.monitor_alert } : undefined,
      pendingPins: pins.servers.filter((p) => p.pending_fingerprint).length,
    }
  } catch (err) {
    const error = (err as Error).message
    return { reachable: false, error, timedOut: /timeout|timed out|aborted/i.test(error), sessionState: 'none', pendingPins: 0 }
  }
}
