/**
 * Is a stored leaf text its own RFC 8785 (JCS) form? The verifier asks this of every leaf, so the common case
 * is answered natively: JCS is `JSON.stringify` with every object's keys in ascending UTF-16 order, hence a text
 * that `JSON.stringify` reproduces from its parse, whose keys are already in that order and which holds no `\u`
 * escape (where lone surrogates and control characters hide), is canonical. Anything else is re-serialised with
 * the JCS library and compared, so the answer is exactly the library's.
 */
import { canonicalJson } from '../core/ledger/jcs.ts'

/** True when every object in `value` has its keys in strictly ascending UTF-16 order. */
function keysSorted(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  if (Array.isArray(value)) {
    for (const item of value) if (!keysSorted(item)) return false
    return true
  }
  let previous: string | undefined
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false
    previous = key
    if (!keysSorted((value as Record<string, unknown>)[key])) return false
  }
  return true
}

/** True when `text` (whose parse is `value`) is the canonical JCS text of `value`; throws where JCS does. */
export function isCanonicalText(text: string, value: unknown): boolean {
  if (!text.includes('\\u') && JSON.stringify(value) === text && keysSorted(value)) return true
  return canonicalJson(value) === text
}
