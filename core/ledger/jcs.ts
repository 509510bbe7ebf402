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
    value.forEach((item, i) => assertLeafJson(item, `${path}[${i}]`))
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
  assertLeafJson(leaf)
  return Buffer.from(canonicalJson(leaf), 'utf8')
}
