/**
 * The case directory `svc false-positive <seq>` writes and `apply` / `rules-patch` read: the bundle's exact
 * bytes, a narrow replacement draft (the matched gate minus this exact call), fixtures for the false positive
 * (allow) and for the gate's malicious examples (deny), and a README of what to do next.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import type { BundleView } from '../../plugins/rule-lifecycle/index.ts'
import { CliError } from '../io.ts'

export type { BundleView }

export interface CaseMeta {
  readonly seq: number
  readonly target: string
  readonly include_raw: boolean
  readonly daemon_url: string
}

export const FILES = { bundle: 'bundle.json', draft: 'replacement.yaml', fixtures: 'fixtures.yaml', readme: 'README.md', meta: 'case.json' } as const

/** The fixtures file of a case: the false positive must be allowed, the gate's malicious examples still denied. */
export function caseFixtures(bundle: BundleView, malicious: readonly Record<string, unknown>[]): string {
  const call = bundle.raw ?? { tool: bundle.event.tool, input: bundle.input.tool_input, cwd: bundle.input.cwd ?? null }
  const fp = { name: `false positive at seq ${bundle.event.seq}`, tool: call.tool, input: call.input, ...(call.cwd ? { cwd: call.cwd } : {}), expect: 'allow' }
  return stringify({ version: 1, fixtures: [fp, ...malicious] }, { lineWidth: 0 })
}

export function caseReadme(bundle: BundleView, meta: CaseMeta, dir: string): string {
  return `# False-positive case: seq ${meta.seq}

Gate \`${bundle.matched_gate.id}\` (${bundle.matched_gate.source}) ${bundle.event.verdict === 'deny' ? 'denied' : 'alerted on'} a ${bundle.event.tool} call from ${bundle.event.source}.

- \`${FILES.bundle}\`: the case bundle (${meta.include_raw ? 'includes the RAW, unredacted call: keep it private' : 'redacted; no raw data'}).
- \`${FILES.draft}\`: a draft replacement gate. Edit it; it is untrusted until validated.
- \`${FILES.fixtures}\`: the false positive (must be allowed) and the gate's malicious examples (must stay denied).

Next steps:

1. Review and narrow \`${FILES.draft}\`.
2. \`svc false-positive apply ${dir}\` validates it, shows the diff of the target policy file (target: ${meta.target}),
   asks for confirmation and applies it atomically (operator rights; recorded in the ledger).
3. Undo with \`svc false-positive revert <apply seq>\`.
${bundle.matched_gate.source.startsWith('registry:') ? `4. The rule came from \`${bundle.matched_gate.source}\`: \`svc false-positive rules-patch ${dir} --rules-repo <checkout>\` drafts the upstream fix.\n` : ''}`
}

/** Writes every file of a case directory (created if needed), with the draft replacement of the matched gate. */
export function writeCaseDir(
  dir: string,
  bundleText: string,
  bundle: BundleView,
  draft: { readonly yaml: string; readonly exact: boolean },
  meta: CaseMeta,
  malicious: readonly Record<string, unknown>[],
): { exact: boolean } {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  writeFileSync(join(dir, FILES.bundle), bundleText, { mode: 0o600 })
  writeFileSync(join(dir, FILES.draft), draft.yaml)
  writeFileSync(join(dir, FILES.fixtures), caseFixtures(bundle, malicious), { mode: 0o600 })
  writeFileSync(join(dir, FILES.readme), caseReadme(bundle, meta, dir))
  writeFileSync(join(dir, FILES.meta), `${JSON.stringify(meta, null, 2)}\n`)
  return { exact: draft.exact }
}

/** Reads a case directory back; a missing or unreadable file is a clear error. */
export function readCaseDir(dir: string): { bundleText: string; bundle: BundleView; meta: CaseMeta; draft: string; fixtures: string | undefined } {
  const read = (name: string) => {
    const path = join(dir, name)
    if (!existsSync(path)) throw new CliError(`${dir} is not a case directory: ${name} is missing (write one with \`svc false-positive <seq> --out ${dir}\`)`)
    return readFileSync(path, 'utf8')
  }
  const bundleText = read(FILES.bundle)
  let bundle: BundleView
  let meta: CaseMeta
  try {
    bundle = JSON.parse(bundleText) as BundleView
    meta = JSON.parse(read(FILES.meta)) as CaseMeta
  } catch (err) {
    throw new CliError(`${dir}: ${(err as Error).message}`)
  }
  const fixturesPath = join(dir, FILES.fixtures)
  return { bundleText, bundle, meta, draft: read(FILES.draft), fixtures: existsSync(fixturesPath) ? readFileSync(fixturesPath, 'utf8') : undefined }
}
