/**
 * The two content hashes the core uses: SHA-256 of text, and SHA-256 of a JSON value's RFC 8785
 * canonical form (so key order and whitespace never change an identity: gate fingerprints, the policy
 * hash, MCP fingerprints).
 */
import { hash } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { CallPayload } from './types.ts'

/** Lower-case hex SHA-256 of `data` (text as UTF-8). One-shot `hash` costs a fraction of a `createHash` object on the check path. */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex')
}

/**
 * RFC 8785 canonical JSON that never throws. JCS refuses a lone UTF-16 surrogate (`\ud800`), but anything
 * a client sends must hash (a throw there once turned a hook into an HTTP 500, which a native HTTP hook
 * treats as "run the tool"). Such a string is written the way JSON.stringify escapes it (`"\ud800"`), which
 * no well-formed string produces, so identities stay distinct; well-formed values are byte-identical to JCS.
 */
export function canonicalJson(value: unknown): string | undefined {
  return canonicalForm(value).text
}

/** Canonical JSON of `value`, and whether it is RFC 8785 itself (`strict`) or the lenient form of a value JCS refuses. */
function canonicalForm(value: unknown): { readonly text: string | undefined; readonly strict: boolean } {
  try {
    return { text: canonicalize(value), strict: true }
  } catch {
    return { text: lenientCanonical(value), strict: false }
  }
}

// Iterative: a payload nested 100,000 deep must hash too (a recursive walk would overflow the stack).
function lenientCanonical(root: unknown): string | undefined {
  const out: string[] = []
  const stack: ({ raw: string } | { value: unknown })[] = [{ value: root }]
  while (stack.length > 0) {
    const task = stack.pop()!
    if ('raw' in task) {
      out.push(task.raw)
      continue
    }
    let value = task.value
    const toJson = (value as { toJSON?: () => unknown } | null)?.toJSON
    if (typeof toJson === 'function') value = toJson.call(value)
    if (value === null || typeof value !== 'object') {
      const text = JSON.stringify(value)
      if (text === undefined && out.length === 0 && stack.length === 0) return undefined
      out.push(text ?? 'null')
      continue
    }
    const tasks: ({ raw: string } | { value: unknown })[] = []
    if (Array.isArray(value)) {
      tasks.push({ raw: '[' })
      value.forEach((item, i) => {
        tasks.push(...(i > 0 ? [{ raw: ',' }] : []), { value: item })
      })
      tasks.push({ raw: ']' })
    } else {
      const record = value as Record<string, unknown>
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined && typeof record[k] !== 'function' && typeof record[k] !== 'symbol')
        .sort()
      tasks.push({ raw: '{' })
      keys.forEach((key, i) => {
        tasks.push({ raw: `${i > 0 ? ',' : ''}${JSON.stringify(key)}:` }, { value: record[key] })
      })
      tasks.push({ raw: '}' })
    }
    for (let i = tasks.length - 1; i >= 0; i--) stack.push(tasks[i]!)
  }
  return out.join('')
}

/** Lower-case hex SHA-256 of the canonical JSON of `value`; a value with no JSON form hashes as ''. */
export function canonicalSha256(value: unknown): string {
  return sha256(canonicalJson(value) ?? '')
}

/** The fields of a call its payload covers. */
export type PayloadFields = { readonly tool: string; readonly input: Readonly<Record<string, unknown>>; readonly cwd?: string }

/** SHA-256 over the canonical tool, input and cwd: correlates a ledger row with the payload without storing it. */
export function payloadHash(call: PayloadFields): string {
  return canonicalSha256(callPayload(call))
}

/** The canonical bytes of a call's payload (tool, input, cwd): what its payload hash is the SHA-256 of. */
export function callPayloadBytes(call: PayloadFields): string {
  return canonicalJson(callPayload(call)) ?? ''
}

/** The part of a call its payload hash covers: tool, input and cwd (null when absent). */
export function callPayload(call: PayloadFields): CallPayload {
  return { tool: call.tool, input: call.input, cwd: call.cwd ?? null }
}

/**
 * A call's payload as canonical bytes and their SHA-256 (a decision leaf's payload_hash), computed once per
 * call and handed to whoever needs either. `strict`: the bytes are RFC 8785 itself, which refuses a lone
 * surrogate in every string and key it writes, so tool, input and cwd need no second walk for Unicode.
 */
export interface PayloadDigest {
  readonly bytes: string
  readonly hash: string
  readonly strict: boolean
}

/** The digest of `call`'s payload: `callPayloadBytes` and `payloadHash` from one canonicalisation. */
export function payloadDigest(call: PayloadFields): PayloadDigest {
  const { text, strict } = canonicalForm(callPayload(call))
  const bytes = text ?? ''
  return { bytes, hash: sha256(bytes), strict }
}
