/**
 * The shared parse/render suite of a harness plugin's tests: its captured fixtures, and table-driven cases
 * whose payloads must parse to exactly the expected hook input and whose answers must render to exactly
 * the expected native body. Harness-specific checks stay as plain `it` blocks beside the tables.
 */
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import type { HarnessDefinition, HarnessPlugin, HookAnswer } from '../../harness-contract/index.ts'

/** Payloads with the hook input each must parse to, by event. */
export type ParseCases = Readonly<Record<string, readonly (readonly [event: string, payload: Readonly<Record<string, unknown>>, expected: Record<string, unknown>])[]>>

/** Answers (undefined: no decision, e.g. a post event) with the exact native body each must render to. */
export type RenderCases = Readonly<Record<string, readonly (readonly [event: string, answer: HookAnswer | undefined, body: string])[]>>

export interface HarnessSuite {
  readonly h: HarnessDefinition
  /** Reads `fixtures/<name>.json` beside the test file. */
  fixture(name: string): Record<string, any>
  /**
   * One `it` per entry (its key is the test name): each payload must parse to all of its expected input
   * (`toEqual`), or with `partial` to what is given (`toMatchObject`).
   */
  parses(cases: ParseCases, options?: { readonly partial?: boolean }): void
  /** One `it` per entry: each answer must render to exactly its body. */
  renders(cases: RenderCases): void
}

/** The suite of `plugin`, with fixtures read relative to the test module `moduleUrl` (`import.meta.url`). */
export function harnessSuite(plugin: HarnessPlugin, moduleUrl: string): HarnessSuite {
  const h = plugin.harness
  return {
    h,
    fixture: (name) => JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, moduleUrl), 'utf8')),
    parses(cases, options = {}) {
      for (const [name, parses] of Object.entries(cases)) {
        it(name, () => {
          for (const [event, payload, expected] of parses) {
            const parsed: unknown = h.parse(event, payload)
            if (options.partial) expect(parsed).toMatchObject(expected)
            else expect(parsed).toEqual(expected)
          }
        })
      }
    },
    renders(cases) {
      for (const [name, renders] of Object.entries(cases)) {
        it(name, () => {
          for (const [event, answer, body] of renders) expect(h.render(event, answer).body).toBe(body)
        })
      }
    },
  }
}
