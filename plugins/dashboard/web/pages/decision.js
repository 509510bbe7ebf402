// Decision: one ledger entry — the redacted call, the policy trace of every layer, guardrail stages when present —
// and its proof verified here in the browser (web/verify.js), step by step.
import { useState } from 'preact/hooks'
import { get } from '../api.js'
import { html } from '../html.js'
import { href } from '../route.js'
import { verifyDecision } from '../verify.js'
import { Failure, Fields, Steps, Table, useLoad, when } from './common.js'

async function loadDecision(seq) {
  const page = await get(`/v1/ledger/entries?after=${seq - 1}&limit=1`)
  const entry = page.entries.find((e) => e.seq === seq)
  if (!entry) throw new Error(`no ledger entry at seq ${seq}`)
  const calls = await get(`/v1/ledger/calls?seqs=${seq}`).catch(() => ({ calls: [] }))
  const guardrail = await get(`/v1/guardrails/traces/${seq}`).catch(() => undefined)
  const gates = entry.leaf.type === 'decision' ? await get(`/v1/ledger/calls/${seq}/trace`).catch(() => undefined) : undefined
  return { entry, call: calls.calls[0], guardrail, gates }
}

/** Takes the signed root first, then the proof at exactly that tree size, so the checkpoint covers it. */
export async function verifySeq(seq) {
  const root = await get('/v1/ledger/root')
  const proof = await get(`/v1/ledger/proof/${seq}?tree_size=${root.tree_size}`)
  return verifyDecision(proof, root)
}

export function DecisionPage({ route }) {
  const seq = Number(route.arg)
  const { data, error } = useLoad(() => loadDecision(seq), [seq])
  const [steps, setSteps] = useState(null)
  const [verifying, setVerifying] = useState(false)
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  const l = data.entry.leaf
  const verify = async () => {
    setVerifying(true)
    try {
      setSteps(await verifySeq(seq))
    } catch (err) {
      setSteps([{ name: 'fetch the proof', ok: false, detail: err.message }])
    }
    setVerifying(false)
  }
  return html`<section>
    <${Fields} rows=${[['seq', data.entry.seq], ['time', when(l.ts_ms)], ['type', l.type], ['verdict', l.verdict], ['rule', l.rule_id], ['reason', l.reason], ['harness', l.source], ['tool', l.tool], ['session', l.session_id], ['signer', l.signer], ['mode', l.mode], ['policy hash', l.policy_hash], ['leaf hash', data.entry.leaf_hash], ['facts', l.facts]]} />
    ${l.verdict === 'deny' || l.verdict === 'monitor_alert' ? html`<p><a href=${href('fp', data.entry.seq)} data-testid="fp-link">This was a false positive…</a></p>` : null}
    <h2>Call${data.call?.redacted ? ' (redacted)' : ''}</h2>
    ${data.call ? html`<pre class="call" data-testid="call">${JSON.stringify(data.call.input, null, 2)}</pre>` : html`<p>The call is not kept (payload retention) or this is not a decision.</p>`}
    <h2>Policy trace (recorded, per layer)</h2>
    <${Table} testid="trace" columns=${[['layer', (t) => t.layer], ['source', (t) => t.source], ['verdict', (t) => t.verdict], ['decided by', (t) => t.rule_id ?? '']]} rows=${l.policy_trace ?? []} />
    ${
      data.gates
        ? html`<h2>Every gate, as the policy decides this call now</h2>
      <p class=${data.gates.policy_hash === l.policy_hash ? 'note' : 'warn'} data-testid="gates-policy">${data.gates.policy_hash === l.policy_hash ? 'Same policy as when it was decided' : `The policy changed since (then ${l.policy_hash ?? 'unknown'}, now ${data.gates.policy_hash})`}: ${data.gates.verdict}${data.gates.rule_id ? ` by ${data.gates.rule_id}` : ''}.</p>
      <${Table} testid="gate-trace" columns=${[['layer', (g) => g.layer], ['gate', (g) => g.id], ['source', (g) => g.source], ['on hit', (g) => g.on_hit], ['matched', (g) => (g.matched ? 'MATCHED' : 'no')], ['why', (g) => g.why]]} rows=${data.gates.gates} />`
        : null
    }
    ${data.guardrail ? html`<h2>Guardrail stages</h2><pre>${JSON.stringify(data.guardrail, null, 2)}</pre>` : null}
    <h2>Verify in this browser</h2>
    <p>Recomputes the leaf hash from the exact leaf bytes, walks the RFC 6962 audit path to the root, and checks the checkpoint's Ed25519 signature with WebCrypto.</p>
    <button onClick=${verify} disabled=${verifying} data-testid="verify">${verifying ? 'Verifying…' : 'Verify'}</button>
    <${Steps} steps=${steps} testid="steps" />
  </section>`
}
