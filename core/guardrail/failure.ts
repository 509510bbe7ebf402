/** Why a provider call produced no usable answer: every failure names its abstention kind (never an allow or a deny). */
import type { AbstainKind } from '../types.ts'

/** A provider call that did not produce a usable answer; the evaluator abstains with `kind`. */
export class GuardrailFailure extends Error {
  readonly kind: AbstainKind
  /** True when the provider answered at all (an HTTP status, a body), false for network failures and timeouts. */
  readonly reachable: boolean

  constructor(kind: AbstainKind, message: string, reachable = true) {
    super(message)
    this.name = 'GuardrailFailure'
    this.kind = kind
    this.reachable = reachable
  }
}

/** Throws the abstention an adapter raises when a vendor answer does not have the documented shape. */
export function malformed(detail: string): never {
  throw new GuardrailFailure('malformed_answer', `malformed answer: ${detail}`)
}

/** Where and how an adapter reaches its vendor for one call: the base URL, the credential's headers, and the abort signal of `max_latency`. */
export interface ProviderConnection {
  readonly baseUrl: string
  readonly headers: Readonly<Record<string, string>>
  readonly signal: AbortSignal
}
