/**
 * One simple command on its way through the analysis: its effective argv, what is known about each field,
 * the scope it runs in, how it was reached, its stdin and redirections.
 */
import type { Redirects, Scope, Stdin } from './state.ts'

/** What is known about each argv field: whether it was dynamic and which programs its substitutions ran. */
export interface FieldInfo {
  readonly dynamic: boolean
  readonly programs: readonly string[]
  readonly procsub: boolean
  /** An unquoted wildcard makes it a pathname pattern (`'*'` is not one). */
  readonly glob?: boolean
}

/** One simple command ready for `dispatch`. */
export interface Invocation {
  readonly argv: readonly string[]
  readonly info: readonly FieldInfo[]
  readonly scope: Scope
  readonly via: readonly string[]
  readonly stdin?: Stdin
  readonly redirects: Redirects
  /** Paths its arguments came from without being named (`find ~/.ssh | xargs cat`: under ~/.ssh): read, as operands are. */
  readonly inputPaths?: readonly string[]
}

/** A field with nothing dynamic about it. */
export const PLAIN: FieldInfo = { dynamic: false, programs: [], procsub: false }
