/**
 * Starting a false-positive case: fetch the case bundle of a denied (or monitor-alert) call from the daemon and
 * write the case directory (bundle, replacement draft, the gate's malicious fixtures). Shared by
 * `svc false-positive <seq>` and `svc top`, which only call this.
 */
import { resolve } from 'node:path'
import { loadRuleAuthoring } from '../../plugins/rule-lifecycle/index.ts'
import { callDaemon, operatorToken } from '../http.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl } from '../paths.ts'
import { writeCaseDir, type BundleView } from './case-dir.ts'

export interface CaseOpts {
  target: 'auto' | 'repo' | 'user'
  out?: string
  includeRaw?: boolean
  url?: string
}

export function parseSeq(value: string): number {
  if (!/^(0|[1-9][0-9]{0,14})$/.test(value)) throw new CliError(`seq must be a ledger sequence number, not "${value}"`, 2)
  return Number(value)
}

/** Writes the case directory of `seqText` to `opts.out` and prints what was written and what to do next. */
export async function writeCase(io: CliIo, seqText: string, opts: CaseOpts): Promise<void> {
  if (!opts.out) throw new CliError('--out <dir> is required: the case directory to write', 2)
  const seq = parseSeq(seqText)
  const url = daemonUrl(io.env, opts.url)
  const token = opts.includeRaw ? await operatorToken(url, io) : undefined
  const res = await fetch(`${url}/v1/false-positives/cases/${seq}${opts.includeRaw ? '?include_raw=true' : ''}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  }).catch((err: Error) => {
    throw new CliError(`cannot reach the svc daemon at ${url} (${err.message})`)
  })
  const text = await res.text()
  if (!res.ok) throw new CliError(`no case for seq ${seq}: ${(JSON.parse(text) as { detail?: string }).detail ?? res.statusText} (HTTP ${res.status})`)
  const bundle = JSON.parse(text) as BundleView
  const view = await callDaemon<{ gates: { id: string; source: string; file: string }[] }>(url, '/v1/policy/view')
  const live = view.gates.find((g) => g.id === bundle.matched_gate.id && g.source === bundle.matched_gate.source)
  const { draftReplacement, fixturesOf } = await loadRuleAuthoring()
  const malicious = live ? fixturesOf(live.file).filter((f) => f.expect !== 'allow' && f.rule === bundle.matched_gate.id) : []
  const dir = resolve(opts.out)
  const { exact } = writeCaseDir(
    dir,
    text,
    bundle,
    draftReplacement(bundle),
    { seq, target: opts.target, include_raw: opts.includeRaw === true, daemon_url: url },
    malicious as unknown as Record<string, unknown>[],
  )
  io.out(`wrote case ${seq} (gate ${bundle.matched_gate.id}, ${bundle.matched_gate.source}) to ${dir}`)
  io.out(
    opts.includeRaw
      ? `raw data: INCLUDED (unredacted call in ${dir}/bundle.json and fixtures.yaml; keep them private)`
      : `raw data: not included (the bundle at ${dir}/bundle.json is redacted)`,
  )
  io.out(
    `draft replacement: ${dir}/replacement.yaml${exact ? '' : ' (review it: the exclusion could not be made exact)'}; ${malicious.length} malicious fixture(s) of the gate in fixtures.yaml`,
  )
  io.out(`next: edit the draft, then \`svc false-positive apply ${dir}\``)
}
