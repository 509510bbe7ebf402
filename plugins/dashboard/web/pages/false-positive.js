// False positive: from a deny, the case bundle (redactions marked), the replacement draft, its validation and diff,
// apply after a confirmation, rollback. Every step is a rule-lifecycle endpoint; this page only shows and asks.
import { useEffect, useState } from 'preact/hooks'
import { get, send } from '../api.js'
import { html } from '../html.js'
import { href } from '../route.js'
import { Failure, Fields, useLoad } from './common.js'

function Diff({ text }) {
  return html`<pre class="diff" data-testid="diff">${text.split('\n').map((line) => html`<span class=${line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : ''}>${line || ' '}</span>`)}</pre>`
}

function ReplayRows({ rows, testid }) {
  return html`<ul data-testid=${testid}>${rows.map((r) => html`<li data-seq=${r.seq}><a href=${href('decision', r.seq)}>seq ${r.seq}</a> ${r.tool} <code>${JSON.stringify(r.input)}</code>${r.redacted ? ' (redacted)' : ''}: ${r.now} → ${r.candidate}</li>`)}</ul>`
}

function ReplayResult({ replay }) {
  return html`<div data-testid="replay-result">
    <p>Replayed the ${replay.replayed} newest recorded decision(s) (${replay.skipped} skipped): ${replay.now_allowed.length} past deny(s) would now be allowed, ${replay.now_denied.length} past allow(s) would now be denied.</p>
    ${replay.now_allowed.length ? html`<h3>Would now be allowed</h3><${ReplayRows} rows=${replay.now_allowed} testid="replay-allowed" />` : null}
    ${replay.now_denied.length ? html`<h3 class="warn">Would now be denied</h3><${ReplayRows} rows=${replay.now_denied} testid="replay-denied" />` : null}
  </div>`
}

export function FalsePositivePage({ route }) {
  const seq = Number(route.arg)
  const { data, error } = useLoad(async () => ({ bundle: await get(`/v1/false-positives/cases/${seq}`), draft: await get(`/v1/false-positives/cases/${seq}/draft`) }), [seq])
  const [yaml, setYaml] = useState('')
  const [validation, setValidation] = useState(null)
  const [confirming, setConfirming] = useState(false)
  const [applied, setApplied] = useState(null)
  const [reverted, setReverted] = useState(null)
  const [problem, setProblem] = useState(null)
  const [replay, setReplay] = useState(null)
  useEffect(() => data && setYaml(data.draft.replacement_yaml), [data])
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  const { bundle } = data
  const act = (fn) => async () => {
    setProblem(null)
    try {
      await fn()
    } catch (err) {
      setProblem(err)
    }
  }
  const validate = act(async () => setValidation(await send('POST', '/v1/false-positives/validate', { bundle, replacement_yaml: yaml })))
  const replayIt = act(async () => setReplay(await send('POST', `/v1/false-positives/cases/${seq}/replay`, { bundle, replacement_yaml: yaml })))
  const apply = act(async () => {
    setApplied(await send('POST', '/v1/false-positives/apply', { bundle, replacement_yaml: yaml, policy_hash: bundle.policy_hash }))
    setConfirming(false)
  })
  const revert = act(async () => setReverted(await send('POST', '/v1/false-positives/revert', { apply_seq: applied.apply_seq })))
  const redacted = new Set(bundle.redaction?.changed?.map((c) => c.field) ?? [])
  return html`<section>
    <p><a href=${href('decision', seq)}>← decision ${seq}</a></p>
    <h2>Case</h2>
    <${Fields} rows=${[['gate', `${bundle.matched_gate.id} (${bundle.matched_gate.source})`], ['file', bundle.matched_gate.file], ['verdict', bundle.event.verdict], ['tool', bundle.event.tool], ['policy hash', bundle.policy_hash]]} />
    ${redacted.size ? html`<p class="warn" data-testid="redactions">Redacted in this bundle: ${[...redacted].map((f) => html`<code class="redacted">${f}</code> `)}</p>` : html`<p>Nothing was redacted.</p>`}
    <details><summary>Case bundle (canonical JSON)</summary><pre data-testid="bundle">${JSON.stringify(bundle, null, 2)}</pre></details>
    <h2>Replacement draft</h2>
    ${data.draft.exact ? null : html`<p class="warn">The exclusion could not be made exact: review the draft.</p>`}
    <textarea rows="14" cols="100" value=${yaml} onInput=${(e) => setYaml(e.target.value)} data-testid="draft"></textarea>
    <p><button onClick=${validate} data-testid="validate">Validate</button></p>
    ${
      validation
        ? html`<div data-testid="validation">
      <p class=${validation.valid ? 'pass' : 'fail'}>${validation.valid ? `valid: ${validation.replacement_id} replaces ${validation.gate_id}; it does not match the event at seq ${validation.seq} and still blocks ${validation.examples_checked} malicious example(s)` : 'not valid'}</p>
      ${validation.still_denied_by?.length ? html`<p class="warn">Still denied by: ${validation.still_denied_by.join(', ')}</p>` : null}
      <p>Target: ${validation.target.path} (${validation.target.layer})</p>
      <${Diff} text=${validation.diff} />
      <p><button onClick=${replayIt} disabled=${!validation.valid} data-testid="replay">Replay over recorded decisions</button></p>
      ${replay ? html`<${ReplayResult} replay=${replay} />` : null}
      ${
        applied
          ? null
          : confirming
            ? html`<p class="warn">This disables ${validation.gate_id} and writes ${validation.replacement_id} into ${validation.target.path}. <button onClick=${apply} data-testid="confirm-apply">Confirm apply</button> <button onClick=${() => setConfirming(false)}>Cancel</button></p>`
            : html`<button onClick=${() => setConfirming(true)} disabled=${!validation.valid} data-testid="apply">Apply…</button>`
      }
    </div>`
        : null
    }
    ${applied ? html`<p class="pass" data-testid="applied">Applied (ledger seq <a href=${href('decision', applied.apply_seq)}>${applied.apply_seq}</a>). ${reverted ? null : html`<button onClick=${revert} data-testid="revert">Roll back</button>`}</p>` : null}
    ${reverted ? html`<p class="pass" data-testid="reverted">Rolled back: ${reverted.path} restored (ledger seq ${reverted.revert_seq}).</p>` : null}
    <${Failure} error=${problem} />
  </section>`
}
