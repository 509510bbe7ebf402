/**
 * Reading a call before deciding it: its payload canonicalised once (bytes and hash for the leaf and its
 * observers), and whether it is text at all. The canonicalisation is also the Unicode check of tool, input
 * and cwd: RFC 8785 refuses a lone surrogate in every string and key it writes, so only when it refused
 * something are those fields walked again, to name the field.
 */
import { payloadDigest, payloadHash, type PayloadDigest, type PayloadFields } from '../hash.ts'
import type { ToolCall } from '../types.ts'
import { illFormedAt } from '../well-formed.ts'

/** Digests handed over with the very call object they were computed for (see withPayloadDigest). */
const handed = new WeakMap<ToolCall, { readonly digest: PayloadDigest; readonly tool: string; readonly input: object; readonly cwd: string | undefined }>()

/**
 * `call`, carrying the digest of its payload that the caller already computed (the hook protocol needs it
 * for its replay identity), so `engine.check(call)` does not canonicalise and hash the call a second time.
 */
export function withPayloadDigest<T extends ToolCall>(call: T, digest: PayloadDigest): T {
  handed.set(call, { digest, tool: call.tool, input: call.input, cwd: call.cwd })
  return call
}

/** The digest of `call`'s payload: the one handed over with it (used once) while tool, input and cwd are the same, else computed now. */
export function payloadDigestOf(call: ToolCall): PayloadDigest {
  const carried = handed.get(call)
  handed.delete(call)
  if (carried && carried.tool === call.tool && carried.input === call.input && carried.cwd === call.cwd) return carried.digest
  return payloadDigest(call)
}

/** The payload hash of each call while it is checked, by its input object: a plugin asking for the same payload's hash reuses it. */
const checking = new WeakMap<object, { readonly tool: string; readonly cwd: string | undefined; readonly hash: string }>()
/** Runs `decide` with `call`'s payload hash known to checkedPayloadHash. */
export function whileChecking<T>(call: ToolCall, payload: PayloadDigest, decide: () => Promise<T>): Promise<T> {
  checking.set(call.input, { tool: call.tool, cwd: call.cwd, hash: payload.hash })
  return decide().finally(() => checking.delete(call.input))
}
/** payloadHash of `fields`: the checked call's own digest when they are its tool, input and cwd, else computed now. */
export function checkedPayloadHash(fields: PayloadFields): string {
  const known = checking.get(fields.input)
  return known && known.tool === fields.tool && known.cwd === fields.cwd ? known.hash : payloadHash(fields)
}

/** Why a call cannot be read as text at all (a lone surrogate in any field), or undefined; `payload` is its digest. */
export function unreadableCall(call: ToolCall, payload: PayloadDigest): string | undefined {
  const { sessionId, source, tool, cwd, toolUseId, input, meta } = call
  // The fields in this order, so the field named is the one a full walk would find first.
  const fields = payload.strict
    ? { session_id: sessionId, source, tool_use_id: toolUseId, meta }
    : { session_id: sessionId, source, tool, cwd, tool_use_id: toolUseId, input, meta }
  const at = illFormedAt(fields, 'call')
  return at === undefined ? undefined : `field "${at.slice('call.'.length)}" is not valid Unicode text (a lone UTF-16 surrogate), so svc cannot tell what the call does; refused`
}
