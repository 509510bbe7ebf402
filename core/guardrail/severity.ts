/**
 * The guardrail severity scale and the classifier result every provider adapter produces. Pure: no I/O,
 * so thresholds and mappings are testable on their own.
 */
import { SEVERITIES, type ClassifierResult, type Severity, type Threshold, type ThresholdOp } from '../types.ts'

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value)
}

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity)
}

const COMPARISON = /^\s*(>=|>|=)\s*([a-z]+)\s*$/

/** Parses `>= high`, `> medium`, `= critical`; throws a RangeError naming the accepted forms. */
export function parseComparison(text: string): { op: ThresholdOp; severity: Severity } {
  const m = COMPARISON.exec(text)
  if (!m || !isSeverity(m[2])) {
    throw new RangeError(`invalid severity comparison "${text}": use >=, > or = followed by one of ${SEVERITIES.join(', ')} (e.g. ">= high")`)
  }
  return { op: m[1] as ThresholdOp, severity: m[2] }
}

function compares(actual: Severity, op: ThresholdOp, wanted: Severity): boolean {
  const a = severityRank(actual)
  const w = severityRank(wanted)
  return op === '>=' ? a >= w : op === '>' ? a > w : a === w
}

/** The categories of `result` that meet `threshold` (empty when it does not hold). */
export function categoriesMeeting(result: ClassifierResult, threshold: Threshold): string[] {
  const names = threshold.category === 'any' ? Object.keys(result.categories) : [threshold.category]
  return names.filter((name) => {
    // An absent category was not flagged: it sits at `none` (so `= none` can hold, `>= low` cannot).
    const severity = result.categories[name]?.severity ?? 'none'
    return compares(severity, threshold.op, threshold.severity)
  })
}

/** Maps a vendor's raw boolean flag: `none` when false, else the model's override or `high` (the spec's default). */
export function flagSeverity(flagged: boolean, category: string, overrides: Readonly<Record<string, Severity>> | undefined): Severity {
  if (!flagged) return 'none'
  return overrides?.[category] ?? 'high'
}
