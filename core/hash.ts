/**
 * The two content hashes the core uses: SHA-256 of text, and SHA-256 of a JSON value's RFC 8785
 * canonical form (so key order and whitespace never change an identity: gate fingerprints, the policy
 * hash, MCP fingerprints).
 */
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { CallPayload } from './types.ts'

/** Lower-case hex SHA-256 of `text` (UTF-8). */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** Lower-case hex SHA-256 of the canonical JSON of `value`; a value with no JSON form hashes as ''. */
export function canonicalSha256(value: unknown): string {
  return sha256(canonicalize(value) ?? '')
}

/** SHA-256 over the canonical tool, input and cwd: correlates a ledger row with the payload without storing it. */
export function payloadHash(call: { readonly tool: string; readonly input: Readonly<Record<string, unknown>>; readonly cwd?: string }): string {
  return canonicalSha256(callPayload(call))
}

/** The part of a call its payload hash covers: tool, input and cwd (null when absent). */
export function callPayload(call: { readonly tool: string; readonly input: Readonly<Record<string, unknown>>; readonly cwd?: string }): CallPayload {
  return { tool: call.tool, input: call.input, cwd: call.cwd ?? null }
}
