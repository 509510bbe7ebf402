/**
 * Reading harness transcripts for `svc scan`: JSONL records with their line numbers, and a collector that keeps
 * each tool call once (transcripts rewrite a message as it grows) and every line it could not use, with why.
 */
import type { HistoryCall, HistoryRead } from '../../harness-contract/index.ts'
import { asRecord } from './payload.ts'

/** One JSONL line: its object, or why it is not one. Blank lines are skipped. */
export type JsonlLine = { readonly line: number; readonly record: Record<string, unknown> } | { readonly line: number; readonly why: string }

export function jsonlLines(text: string): JsonlLine[] {
  const out: JsonlLine[] = []
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return
    try {
      const record = asRecord(JSON.parse(raw))
      out.push(record ? { line: i + 1, record } : { line: i + 1, why: 'not a JSON object' })
    } catch {
      out.push({ line: i + 1, why: 'not valid JSON (a truncated or corrupt line)' })
    }
  })
  return out
}

/** Collects calls by id (the last version of a call wins, at the place it first appeared) and unreadable lines. */
export class HistoryCollector {
  readonly #calls = new Map<string, HistoryCall>()
  readonly #unreadable: { line: number; why: string }[] = []
  #anonymous = 0

  add(id: string | undefined, call: HistoryCall): void {
    this.#calls.set(id ?? `#${++this.#anonymous}`, call)
  }

  unreadable(line: number, why: string): void {
    this.#unreadable.push({ line, why })
  }

  result(): HistoryRead {
    return { calls: [...this.#calls.values()], unreadable: this.#unreadable }
  }
}

/** A string, or undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
