/**
 * RFC 8785 JSON Canonicalization (JCS) through the `canonicalize` package, plus the I-JSON subset ledger
 * leaves must stay within: integers only (|x| <= 2^53 - 1), no floats, no lone surrogates, plain objects.
 * Leaves are stored as these exact bytes and never re-serialised.
 */
import canonicalize from 'canonicalize'

/** RFC 8785 canonical text of a JSON value; throws on values JSON cannot carry (NaN, Infinity, undefined). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value)
  if (typeof text !== 'string') throw new TypeError('value has no JSON form')
  return text
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Throws unless `value` fits the leaf subset of I-JSON; `path` names the offending field. */
export function assertLeafJson(value: unknown, path = '$'): void {
  if (value === null || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError(`${path}: ledger leaves carry only safe integers, got ${value}`)
    return
  }
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) throw new TypeError(`${path}: string contains a lone surrogate`)
    return
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      assertLeafJson(item, `${path}[${i}]`)
    })
    return
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) throw new TypeError(`${path}: key contains a lone surrogate`)
      if (item !== undefined) assertLeafJson(item, `${path}.${key}`)
    }
    return
  }
  throw new TypeError(`${path}: ${typeof value} cannot appear in a ledger leaf`)
}

/** Canonical UTF-8 bytes of a ledger leaf object, after checking it fits the leaf subset. */
export function leafBytes(leaf: Readonly<Record<string, unknown>>): Buffer {
  // One walk that checks and serialises; anything it does not take goes the long way, which names the problem.
  const text = leafSubsetJson(leaf)
  if (text !== undefined) return Buffer.from(text, 'utf8')
  assertLeafJson(leaf)
  return Buffer.from(canonicalJson(leaf), 'utf8')
}

/** Keys JSON.stringify would not write in insertion order (V8 lists array-index keys first, numerically). */
const INDEX_LIKE = /^(?:0|[1-9][0-9]*)$/

/**
 * JCS of a value inside the leaf subset (null, booleans, safe integers, well-formed strings, arrays, plain
 * objects without index-like keys), or undefined for anything else. Within it JCS is JSON.stringify of a copy
 * whose keys are inserted sorted by UTF-16 code unit: one native stringify instead of one per value.
 */
function leafSubsetJson(value: unknown): string | undefined {
  const copy = sortedCopy(value)
  return copy === undefined ? undefined : JSON.stringify(copy)
}

function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined
  if (typeof value === 'string') return value.isWellFormed() ? value : undefined
  if (typeof value !== 'object') return undefined
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      const item = i in value ? sortedCopy(value[i]) : undefined
      if (item === undefined) return undefined
      out[i] = item
    }
    return out
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue
    // `__proto__` would set the copy's prototype instead of a key: the long way writes it.
    const item = INDEX_LIKE.test(key) || key === '__proto__' || !key.isWellFormed() ? undefined : sortedCopy(record[key])
    if (item === undefined) return undefined
    out[key] = item
  }
  return out
}
