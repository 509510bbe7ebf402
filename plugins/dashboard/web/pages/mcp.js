// MCP servers: every server svc has seen or pinned, its pin state, what changed, and accept (operator, ledgered).
// Server names, identities and fingerprints come from agents' configs: shown as text only.
import { useState } from 'preact/hooks'
import { get, send } from '../api.js'
import { html } from '../html.js'
import { Failure, Table, useLoad } from './common.js'

export function McpPage() {
  const { data, error, reload } = useLoad(() => get('/v1/mcp/pins'), [])
  const [done, setDone] = useState(null)
  const [problem, setProblem] = useState(null)
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  const accept = async (s) => {
    setProblem(null)
    try {
      const r = await send('POST', '/v1/mcp/pin/accept', { server: s.server, fingerprint: s.latest_fingerprint ?? s.pending_fingerprint })
      setDone(`${r.server} pinned at ${r.pinned_fingerprint} (ledger seq ${r.ledger_seq})`)
      reload()
    } catch (err) {
      setProblem(err)
    }
  }
  const waiting = (s) => s.pending_fingerprint ?? s.latest_fingerprint
  const columns = [
    ['server', (s) => s.server],
    ['state', (s) => s.state],
    ['pinned', (s) => s.pinned_fingerprint ?? ''],
    ['waiting', (s) => (waiting(s) ? `${waiting(s)} (${s.pending_source ?? s.latest_source ?? ''})` : '')],
    ['identity', (s) => html`<code>${JSON.stringify(s.identity)}</code>`],
    ['last seen', (s) => s.last_seen],
    ['', (s) => (waiting(s) ? html`<button onClick=${() => accept(s)} data-testid=${`accept-${s.server}`}>Accept</button>` : '')],
  ]
  return html`<section>
    <${Table} testid="pins" columns=${columns} rows=${data.servers} />
    ${done ? html`<p class="pass" data-testid="accepted">${done}</p>` : null}
    <${Failure} error=${problem} />
    <p class="note">Servers configured in harness files but never sighted, a per-tool diff of a changed fingerprint, and reject are not offered yet (<code>svc mcp</code>).</p>
  </section>`
}
