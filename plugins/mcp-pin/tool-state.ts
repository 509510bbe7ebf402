/**
 * Tool-level pin state of a call to a server whose tool list the proxy has seen: a tool runs only when the
 * version the server serves now has the fingerprint of the version an operator pinned. A new tool is
 * `queued`, a changed one a `mismatch` naming the fields that changed, and every tool is `stale` from a
 * `list_changed` notification until a fresh list is verified. Without a served list the server-level pin decides.
 */
import { toolDiff, toolFingerprint } from './fingerprint.ts'
import type { PinRecord } from './pin-store.ts'

export interface ToolPin {
  readonly state: 'pinned' | 'queued' | 'mismatch' | 'stale'
  readonly fingerprint?: string
  readonly pinnedFingerprint?: string
  /** Pinned fields that changed (mismatch); empty when the server's identity changed. */
  readonly changed?: readonly string[]
  /** Why, in a few words (for deny reasons and `svc mcp list`). */
  readonly why: string
}

export function toolPinState(record: PinRecord | undefined, tool: string): ToolPin | undefined {
  const served = record?.served
  if (!record || !served) return undefined
  if (served.stale) return { state: 'stale', why: 'the server announced a changed tool list (list_changed) that svc has not verified yet' }
  const now = served.tools.find((t) => t.name === tool)
  if (!now) return { state: 'queued', why: `the server does not offer a tool "${tool}" in its tool list` }
  const fingerprint = toolFingerprint(served.identity, now)
  const pinned = record.pinned?.tools?.find((t) => t.name === tool)
  if (!record.pinned || !pinned) return { state: 'queued', fingerprint, why: record.pinned ? 'the tool is new since the server was pinned' : 'the server is not pinned' }
  const pinnedFingerprint = toolFingerprint(record.pinned.identity, pinned)
  if (pinnedFingerprint === fingerprint) return { state: 'pinned', fingerprint, pinnedFingerprint, why: 'pinned' }
  const changed = toolDiff(pinned, now)
  const why = changed.length ? `its ${changed.join(', ')} changed since it was pinned` : 'the server it runs on changed since it was pinned'
  return { state: 'mismatch', fingerprint, pinnedFingerprint, changed, why }
}
