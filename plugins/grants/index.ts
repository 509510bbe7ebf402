/**
 * Allow-once in the user's hands (docs/grants.md). Every local deny names a short code (kept in grants.db with
 * the exact call it refers to); `svc allow <code>` lets that call through once (or for a window), `svc allow rule
 * <gate>` stops one gate denying in one project for a window. A grant needs the user's proof (a trusted host key's
 * signature, or an operator token): `POST /v1/grants` refuses it otherwise, and the self-protection pack refuses
 * `svc allow` from a tool call. The kernel's only loosening is a decision's `grant`, which waives exactly its
 * gates (core decision.ts `waive`); the grant and every use are control leaves.
 */
import { checkedPayloadHash, extensionRegistry, STAGE, type Decision, type EnginePlugin, type Registries } from '../../core/index.ts'
import { lazyRoutes } from '../../daemon/index.ts'
import { grantsFor } from './match.ts'
import type { GrantStore } from './store.ts'

export { signGrant, type GrantBody, type GrantRequest } from './proof.ts'

/** The daemon's grant state (set when its routes open the store): absent in one-shot engines. */
export function grantState(registry: Registries): Map<string, GrantStore> {
  return extensionRegistry<GrantStore>(registry, 'grants')
}

/** The line every deny that names a code ends with: what the user types, in their own terminal. */
export function allowHint(code: string): string {
  return `To let this exact call through once, the user runs: svc allow ${code}`
}

const plugin: EnginePlugin = {
  name: 'feature:grants',
  apply({ hooks, registry, log, bring }) {
    bring(lazyRoutes(() => import('./routes.ts')))
    const state = grantState(registry)
    const named = new WeakMap<Decision, string>()
    const used = new WeakMap<NonNullable<Decision['grant']>, { ids: string[]; payloadHash: string }>()
    hooks.postLocal.tap({ name: 'grants', stage: STAGE.LAST }, (decision, request, ctx) => {
      const store = state.get('store')
      if (!store || decision.verdict !== 'deny' || decision.stage !== 'local') return decision
      // A signer-strength refusal is not the user's to waive per call: it names no code.
      if (decision.hits.some((h) => h.requireStrong && ctx.session?.signer !== 'hardware_key')) return decision
      const denying = [...new Set(decision.hits.filter((h) => h.onHit === 'deny').map((h) => h.gateId))]
      // The hash the decision leaf gets, computed once for the check (not canonicalised again per deny).
      const hash = checkedPayloadHash({ tool: request.tool, input: request.input, ...(request.cwd === undefined ? {} : { cwd: request.cwd }) })
      const grants = grantsFor({ payloadHash: hash, ...(request.cwd === undefined ? {} : { cwd: request.cwd }) }, denying, store.live(ctx.now))
      if (grants?.every((g) => store.use(g.id))) {
        const grant = { id: grants.map((g) => g.id).join('+'), gates: denying }
        used.set(grant, { ids: grants.map((g) => g.id), payloadHash: hash })
        return { ...decision, grant }
      }
      const code = store.codeFor({ payloadHash: hash, cwd: request.cwd ?? '', sessionId: request.sessionId, tool: request.tool, gates: denying }, ctx.now)
      const named_ = { ...decision, reason: `${decision.reason}. ${allowHint(code)}` }
      named.set(named_, code)
      return named_
    })
    hooks.ledgerAppend.tap({ name: 'grants', stage: STAGE.DEFAULT }, (entry, decision) => {
      const store = state.get('store')
      if (!store || !decision) return
      const code = named.get(decision)
      if (code) store.setDenySeq(code, entry.seq)
      const use = decision.grant && used.get(decision.grant)
      if (!use || !decision.grant) return
      const recorder = grantRecorder(registry)
      recorder?.(
        'allow_used',
        { grant: decision.grant.id, gates: decision.grant.gates.join(','), decision_seq: String(entry.seq), payload_hash: use.payloadHash, verdict: entry.verdict },
        `the user's grant ${decision.grant.id} let call ${entry.seq} through (${decision.grant.gates.join(', ')} would have denied it)`,
      ).catch((err: unknown) => log.error({ err }, 'could not record a grant use'))
    })
    hooks.shutdown.tapPromise({ name: 'grants', stage: STAGE.LAST }, async () => {
      state.get('store')?.close()
      state.delete('store')
    })
  },
}

type Recorder = (verdict: 'allow_granted' | 'allow_used', facts: Record<string, string>, reason: string) => Promise<unknown>

/** How the plugin records its control leaves: the engine's recordEvent, handed over by the routes. */
export function grantRecorder(registry: Registries): Recorder | undefined {
  return extensionRegistry<Recorder>(registry, 'grant-recorder').get('record')
}

export default plugin
