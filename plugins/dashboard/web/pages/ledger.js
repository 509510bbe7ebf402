// Ledger: the signed root, a consistency proof between two sizes verified here (against the signed checkpoint and
// against roots this browser verified before), search by seq or leaf hash, and an export of the entries.
import { useState } from 'preact/hooks'
import { get } from '../api.js'
import { html } from '../html.js'
import { href, setParams } from '../route.js'
import { equalBytes, fromBase64, parseCheckpoint, verifyConsistency, verifyNote } from '../verify.js'
import { Failure, Fields, Steps, Table, useLoad } from './common.js'

const REMEMBERED = 'svc-dashboard-roots'

function remembered() {
  try {
    return JSON.parse(localStorage.getItem(REMEMBERED) ?? '{}')
  } catch {
    return {}
  }
}

function remember(size, rootB64) {
  localStorage.setItem(REMEMBERED, JSON.stringify({ ...remembered(), [size]: rootB64 }))
}

/** Every step that shows the tree of `from` leaves is a prefix of the signed tree of `to` leaves. */
export async function verifyGrowth(c, root) {
  const steps = []
  const step = (name, ok, detail) => steps.push({ name, ok: ok === true, detail: ok === true ? 'passed' : detail })
  const note = root.checkpoint ? await verifyNote(root.checkpoint, root.vkey) : { ok: false, reason: 'no signed checkpoint' }
  step('checkpoint Ed25519 signature (WebCrypto)', note.ok, note.reason)
  const cp = root.checkpoint ? parseCheckpoint(root.checkpoint) : undefined
  step(
    `checkpoint covers ${c.to} leaves with the proof's new root`,
    !!cp && cp.size === c.to && equalBytes(cp.root, fromBase64(c.root_to)),
    cp ? `checkpoint: ${cp.size} leaves` : 'no checkpoint',
  )
  const r = await verifyConsistency(c.from, c.to, c.proof.map(fromBase64), fromBase64(c.root_from), fromBase64(c.root_to))
  step(`consistency proof ${c.from} → ${c.to} (${c.proof.length} hashes)`, r.ok, r.reason)
  const seen = remembered()[c.from]
  if (seen) step(`old root equals the one this browser verified at size ${c.from}`, seen === c.root_from, `remembered ${seen}, proof says ${c.root_from}`)
  if (steps.every((s) => s.ok)) remember(c.to, c.root_to)
  return steps
}

export function LedgerPage({ route }) {
  const p = route.params
  const { data: root, error } = useLoad(() => get('/v1/ledger/root'), [])
  const { data: history } = useLoad(() => get('/v1/ledger/checkpoints?limit=50'), [])
  const [steps, setSteps] = useState(null)
  const [found, setFound] = useState(null)
  if (error) return html`<${Failure} error=${error} />`
  if (!root) return html`<p>Loading…</p>`
  const from = Number(p.from ?? Math.max(1, Math.floor(root.tree_size / 2)))
  const check = async () => {
    try {
      const fresh = await get('/v1/ledger/root')
      const c = await get(`/v1/ledger/consistency?from=${from}&to=${fresh.tree_size}`)
      setSteps(await verifyGrowth(c, fresh))
    } catch (err) {
      setSteps([{ name: 'fetch the consistency proof', ok: false, detail: err.message }])
    }
  }
  const setFrom = (e) => {
    e.preventDefault()
    setParams('ledger', undefined, { ...p, from: e.target.elements.from.value })
  }
  const search = async (e) => {
    e.preventDefault()
    const q = e.target.elements.q.value.trim()
    setParams('ledger', undefined, { ...p, q })
    if (/^[0-9]+$/.test(q)) return (location.hash = href('decision', q))
    for (let before, i = 0; i < 20; i++) {
      const page = await get(`/v1/ledger/entries?order=desc&limit=1000${before !== undefined ? `&before=${before}` : ''}`)
      const hit = page.entries.find((x) => x.leaf_hash === q.toLowerCase())
      if (hit) return (location.hash = href('decision', hit.seq))
      if (page.next_before === null) break
      before = page.next_before
    }
    setFound(`no entry with leaf hash ${q}`)
  }
  const exportJson = async () => {
    const all = []
    for (let after = -1; ; ) {
      const page = await get(`/v1/ledger/entries?after=${after}&limit=1000`)
      all.push(...page.entries)
      if (page.next_after === null) break
      after = page.next_after
    }
    const a = document.createElement('a')
    a.href = URL.createObjectURL(new Blob([JSON.stringify({ root, entries: all }, null, 1)], { type: 'application/json' }))
    a.download = `svc-ledger-${root.tree_size}.json`
    a.click()
  }
  return html`<section>
    <${Fields} rows=${[['origin', root.origin], ['tree size', root.tree_size], ['root', root.root_hex], ['signer', root.signer], ['session', root.session_id]]} />
    ${root.checkpoint ? html`<h2>Signed checkpoint</h2><pre data-testid="checkpoint">${root.checkpoint}</pre>` : html`<p>No signed checkpoint: no session with a signing key is active.</p>`}
    <h2>Checkpoint history</h2>
    ${history ? html`<${Table} testid="checkpoints" columns=${[['tree size', (c) => c.tree_size], ['root', (c) => c.root], ['signed by', (c) => c.signer_kid], ['at', (c) => c.created_at], ['', (c) => html`<a href=${href('ledger', undefined, { ...p, from: c.tree_size })}>prove growth since</a>`]]} rows=${history.checkpoints} />` : null}
    <h2>Consistency</h2>
    <p>Proves that the tree of the first <em>from</em> leaves is a prefix of the signed tree now (nothing was rewritten).</p>
    <form class="inline" onSubmit=${setFrom}>
      <label>from size <input name="from" value=${from} /></label>
      <button type="submit">Set</button>
    </form>
    <button onClick=${check} data-testid="consistency">Verify consistency ${from} → signed size</button>
    <${Steps} steps=${steps} testid="consistency-steps" />
    <h2>Search</h2>
    <form class="inline" onSubmit=${search}><label>seq or leaf hash <input name="q" value=${p.q ?? ''} /></label><button type="submit">Find</button></form>
    ${found ? html`<p>${found}</p>` : null}
    <h2>Export</h2>
    <button onClick=${exportJson}>Download the entries (JSON)</button> <span>(the full signed export with checkpoints: <code>svc ledger export --out FILE</code>)</span>
  </section>`
}
