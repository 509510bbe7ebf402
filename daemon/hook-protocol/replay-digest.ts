/**
 * A hook delivery's two digests from one canonicalisation: the call's payload (what its decision leaf's
 * payload_hash covers, handed on to the engine) and the replay identity (the payload without the input members
 * a harness may vary between duplicate deliveries of one call).
 */
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { payloadDigest, payloadHash, sha256, type PayloadDigest, type PayloadFields } from '../../core/index.ts'

/**
 * The digest of `call`'s payload and the payload hash of the same call without the input members `omit`
 * picks (the hook protocol's replay identity), from one canonicalisation: RFC 8785 writes an object as its
 * members sorted by key, so both byte strings are joins of the same member texts. Input the join could write
 * otherwise than RFC 8785 (not a plain object, text that is not Unicode, a value it refuses) goes the long way.
 */
export function payloadDigestWithout(call: PayloadFields, omit: (key: string, value: unknown) => boolean): { readonly digest: PayloadDigest; readonly withoutHash: string } {
  const members = memberTexts(call.input)
  const tool = strictText(call.tool)
  const cwd = strictText(call.cwd ?? null)
  if (members === undefined || tool === undefined || cwd === undefined) {
    const kept = Object.fromEntries(Object.entries(call.input).filter(([key, value]) => !omit(key, value)))
    return { digest: payloadDigest(call), withoutHash: payloadHash({ tool: call.tool, input: kept, ...(call.cwd !== undefined ? { cwd: call.cwd } : {}) }) }
  }
  // The keys of callPayload's object, sorted: cwd, input, tool.
  const head = `{"cwd":${cwd},"input":{`
  const tail = `},"tool":${tool}}`
  // One join: each string copied of a large input (file content) costs about as much as hashing it.
  const bytes = [head, ...members.flatMap((m, i) => [i > 0 ? `,${m.name}` : m.name, m.text]), tail].join('')
  const digest: PayloadDigest = { bytes, hash: sha256(bytes), strict: true }
  const kept = members.filter((m) => !omit(m.key, m.value))
  if (kept.length === members.length) return { digest, withoutHash: digest.hash }
  // Hashed piece by piece: the payload without those members is never needed as one string.
  const without = createHash('sha256').update(head)
  for (const [i, m] of kept.entries()) without.update(i > 0 ? `,${m.name}` : m.name).update(m.text)
  return { digest, withoutHash: without.update(tail).digest('hex') }
}

/** RFC 8785 text of null or a Unicode string; undefined for anything else. */
function strictText(value: unknown): string | undefined {
  if (value === null) return 'null'
  return typeof value === 'string' && value.isWellFormed() ? JSON.stringify(value) : undefined
}

/**
 * The RFC 8785 members of a plain object in key order (`name` is `"key":`, `text` the value's JCS), or
 * undefined when RFC 8785 would refuse the object or not write it member by member (a toJSON, another
 * prototype, a lone surrogate, NaN, a cycle). Members without a JSON value are left out, as RFC 8785 leaves them out.
 */
function memberTexts(record: unknown): { readonly key: string; readonly value: unknown; readonly name: string; readonly text: string }[] | undefined {
  if (typeof record !== 'object' || record === null) return undefined
  const proto: unknown = Object.getPrototypeOf(record)
  if ((proto !== Object.prototype && proto !== null) || typeof (record as { toJSON?: unknown }).toJSON === 'function') return undefined
  const members: { key: string; value: unknown; name: string; text: string }[] = []
  for (const key of Object.keys(record).sort()) {
    const value = (record as Record<string, unknown>)[key]
    if (value === undefined || typeof value === 'symbol' || typeof value === 'function') continue
    let text: string | undefined
    try {
      text = canonicalize(value)
    } catch {
      return undefined
    }
    if (text === undefined) continue
    if (!key.isWellFormed()) return undefined
    members.push({ key, value, name: `${JSON.stringify(key)}:`, text })
  }
  return members
}
