/**
 * The core's tapable hooks. Every variable part of the product taps one of these; the engine calls them
 * in a fixed order: initialize (once) → preEvaluate → evaluate (per leaf predicate) → postLocal →
 * guardrail → ledgerAppend (→ shutdown, once). A hook stays here only while a plugin taps it or the design card names it.
 */
import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap, SyncBailHook, SyncHook } from 'tapable'
import { EngineError, ERR } from './errors.ts'
import type { Decision, EvalContext, EvalRequest, GuardrailRound, GuardrailVerdict, IndexKeys, LedgerEntry } from './types.ts'

/** Named tap stages (lower runs first). */
export const STAGE = { FIRST: -1000, CHEAP: -100, DEFAULT: 0, EXPENSIVE: 100, LAST: 1000 } as const

/** A compiled leaf predicate: its kind's test bound to the YAML value it was compiled from. */
export interface CompiledLeaf {
  readonly kind: string
  /** Returns a short description of what matched, or undefined when the leaf does not hold. */
  readonly test: PredicateTest
  /** What a call needs for this leaf to hold (the kind's index hint), when the kind can say. */
  readonly keys?: IndexKeys
}
/** A compiled leaf predicate: a description of what matched, or undefined when it did not. */
export type PredicateTest = (request: EvalRequest, ctx: EvalContext) => string | undefined

/** The `evaluate` hook of one leaf kind: the first tap to return a description decides the leaf. */
export type LeafHook = SyncBailHook<[CompiledLeaf, EvalRequest, EvalContext], string | undefined>

/** Creates a fresh, frozen set of hooks; one per engine, never module-global. */
export function createHooks() {
  const hooks = Object.freeze({
    /** Open clients, load parsers and databases (async work never goes in `apply`); shell analysis loads its parser here. */
    initialize: new AsyncSeriesHook<[]>([]),
    /** Normalise the call: shell-parse commands, canonicalise paths, parse URLs. Each tap returns the next request. */
    preEvaluate: new AsyncSeriesWaterfallHook<[EvalRequest, EvalContext]>(['request', 'ctx']),
    /** One bail hook per predicate kind: the first tap to answer decides whether the leaf holds. */
    evaluate: new HookMap<LeafHook>((kind: string) => new SyncBailHook(['leaf', 'request', 'ctx'], `evaluate:${kind}`)),
    /** Refine the combined local decision; the core rejects any tap that loosens it. */
    postLocal: new AsyncSeriesWaterfallHook<[Decision, EvalRequest, EvalContext]>(['decision', 'request', 'ctx']),
    /**
     * External classifiers after a local allow (never after a local deny), cheapest first. Each tap records a
     * verdict per evaluator it ran in `round.verdicts` and returns only a deny, which stops the hook; tap it
     * through `defineGuardrailProvider`, which turns every failure into a traced abstention.
     */
    guardrail: new AsyncSeriesBailHook<[GuardrailRound], GuardrailVerdict | undefined>(['round']),
    /**
     * Observers of durable entries (counters, insights, guardrail traces, stored calls), with the decision it
     * records and the exact call its payload_hash commits to; their throws are logged, never fatal.
     */
    ledgerAppend: new SyncHook<[LedgerEntry, Decision | undefined, string | undefined]>(['entry', 'decision', 'payloadBytes']),
    /** Close what `initialize` opened (the guardrail trace database). */
    shutdown: new AsyncSeriesHook<[]>([]),
  })
  attributeErrors(hooks)
  return hooks
}

/** The hook set of one engine, as `createHooks` builds it. */
export type EngineHooks = ReturnType<typeof createHooks>

interface InterceptableTap {
  name: string
  type: 'sync' | 'async' | 'promise'
  fn: (...args: unknown[]) => unknown
}

function wrapTap(hookName: string) {
  return (tap: InterceptableTap): InterceptableTap => {
    if (tap.type === 'async') {
      throw new EngineError(ERR.PLUGIN_FAILED, `${tap.name}: tapAsync is not supported on ${hookName}; use tap or tapPromise`, { plugin: tap.name, hook: hookName })
    }
    const fn = tap.fn
    const fail = (cause: unknown): never => {
      if (cause instanceof EngineError) throw cause
      const message = cause instanceof Error ? cause.message : String(cause)
      throw new EngineError(ERR.PLUGIN_FAILED, `${tap.name} failed in ${hookName}: ${message}`, { cause, plugin: tap.name, hook: hookName })
    }
    const wrapped =
      tap.type === 'promise'
        ? (...args: unknown[]) =>
            Promise.resolve()
              .then(() => fn(...args))
              .catch(fail)
        : (...args: unknown[]) => {
            try {
              return fn(...args)
            } catch (cause) {
              return fail(cause)
            }
          }
    return { ...tap, fn: wrapped }
  }
}

// Stamps the plugin name and hook on every error a tap throws, so a failure names its author.
function attributeErrors(hooks: Record<string, unknown>): void {
  for (const [hookName, hook] of Object.entries(hooks)) {
    if (hook instanceof HookMap) {
      hook.intercept({
        factory: (key, created) => {
          ;(created as unknown as { intercept(i: object): void }).intercept({ register: wrapTap(`evaluate:${String(key)}`) })
          return created
        },
      })
    } else {
      ;(hook as { intercept(i: object): void }).intercept({ register: wrapTap(hookName) })
    }
  }
}
