// MCP servers: every server the harness configs define or svc has seen, whether it runs through `svc mcp-proxy`,
// its pin state, tool by tool what changed in a changed fingerprint, accept and reject (operator, ledgered), beside
// the server's name so they are in view at any width.
// Server names, identities, tool names and descriptions come from agents' configs: shown as text only.
import { useState } from 'preact/hooks'
import { get, send } from '../api.js'
import { html } from '../html.js'
import { Failure, Table, useLoad } from './common.js'

function Tools({ tools }) {
  if (!tools?.length) return ''
  return html`<ul class="tools">${tools.map((t) => html`<li><code>${t.name}</code>: ${t.state}${t.changed?.length ? ` (changed: ${t.changed.join(', ')})` : ''}${t.why ? html` <span class="note">${t.why}</span>` : ''}</li>`)}</ul>`
}

export function McpPage() {
  const { data, error, reload } = useLoad(async () => {
    const [servers, pins] = await Promise.all([get('/v1/mcp/servers'), get('/v1/mcp/pins')])
    const byName = new Map(pins.servers.map((p) => [p.server, p]))
    return servers.servers.map((s) => ({ ...s, record: byName.get(s.name) }))
  }, [])
  const [done, setDone] = useState(null)
  const [problem, setProblem] = useState(null)
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  const waiting = (s) => s.record?.latest_fingerprint ?? s.record?.pending_fingerprint
  const decide = async (s, verb) => {
    setProblem(null)
    try {
      const r = await send('POST', `/v1/mcp/pin/${verb}`, { server: s.name, fingerprint: waiting(s) })
      setDone(
        verb === 'accept'
          ? `${r.server} pinned at ${r.pinned_fingerprint} (ledger seq ${r.ledger_seq})`
          : `${r.server} rejected at ${r.rejected_fingerprint}: its calls are denied until accepted (ledger seq ${r.ledger_seq})`,
      )
      reload()
    } catch (err) {
      setProblem(err)
    }
  }
  const columns = [
    ['server', (s) => s.name],
    [
      '',
      (s) =>
        waiting(s)
          ? html`<button onClick=${() => decide(s, 'accept')} data-testid=${`accept-${s.name}`}>Accept</button> ${s.record?.rejected_fingerprint === waiting(s) ? html`<span class="warn">rejected</span>` : html`<button onClick=${() => decide(s, 'reject')} data-testid=${`reject-${s.name}`}>Reject</button>`}`
          : '',
    ],
    ['harness / file', (s) => (s.harness ? html`${s.harness}: <code>${s.file}</code>` : 'seen at run time')],
    ['transport', (s) => s.transport],
    ['through svc', (s) => (s.governed ? 'yes' : html`<span class="warn">no</span> <span class="note">${s.ungoverned_reason ?? ''}</span>`)],
    ['pin', (s) => s.pin.state],
    ['pinned', (s) => html`<code>${s.pin.pinned_fingerprint ?? ''}</code>`],
    ['waiting', (s) => (waiting(s) ? html`<code>${waiting(s)}</code> (${s.record.latest_source ?? s.record.pending_source ?? ''})` : '')],
    ['tools', (s) => html`<${Tools} tools=${s.tools} />`],
    ['identity', (s) => html`<code>${JSON.stringify(s.identity)}</code>`],
  ]
  return html`<section>
    <${Table} testid="pins" columns=${columns} rows=${data} />
    ${done ? html`<p class="pass" data-testid="accepted">${done}</p>` : null}
    <${Failure} error=${problem} />
    <p class="note">A server neither accepted nor rejected is denied by <code>mcp.unpinned-server</code> all the same; Reject records the operator's decision (ledgered) and names it in every deny. Accept undoes it.</p>
  </section>`
}
