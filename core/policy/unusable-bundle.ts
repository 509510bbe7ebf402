/**
 * What stands in for a signed policy bundle whose files do not compile on this svc (an svc upgrade that
 * changed a gate kind's schema, say): one floor gate that denies every call and says why. Refusing to
 * start would leave the daemon unable to fetch the fixed bundle; dropping the bundle would loosen the
 * managed floor. So the daemon starts, keeps polling, and this gate goes away with the next bundle that compiles.
 */
import { sha256 } from '../hash.ts'
import type { CompiledGate, CompiledNode } from './compiled.ts'
import type { FileProblem } from './policy-file.ts'

export const UNUSABLE_BUNDLE_GATE_ID = 'svc.policy-bundle-unusable'

// `not` of an empty `any` holds for every call (an empty `any` never holds).
const EVERY_CALL: CompiledNode = { op: 'not', node: { op: 'any', nodes: [] } }

/** The deny-everything floor gate for a bundle file that does not compile (its path and the compiler's problem). */
export function unusableBundleGate(path: string, problem: FileProblem): CompiledGate {
  const description = `the managed policy bundle does not compile on this svc (${path}: ${problem.message}); every call is denied until the bundle server serves a revision that compiles`
  return {
    id: UNUSABLE_BUNDLE_GATE_ID,
    description,
    layer: 'daemon',
    source: 'bundle',
    loc: problem.loc ?? { file: path },
    policyMode: 'firewall',
    onHit: 'deny',
    requireStrong: false,
    disabled: false,
    when: { unusable_bundle: path },
    evaluate: [],
    evaluators: [],
    fingerprint: sha256(`${UNUSABLE_BUNDLE_GATE_ID}\0${path}\0${problem.message}`),
    node: EVERY_CALL,
  }
}
