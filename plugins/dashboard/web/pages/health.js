// Health: what `svc doctor` checks, computed by the daemon — the daemon and its session, the hooks each harness
// has installed and whether they are current (entries missing, an old daemon URL, the shim), policy files, the
// ledger, and every problem with what to do about it.
import { doctor } from '../api.js'
import { html } from '../html.js'
import { Failure, Fields, Table, useLoad } from './common.js'

export function HealthPage() {
  const { data, error, reload } = useLoad(() => doctor(), [])
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Checking…</p>`
  const { report, problems } = data
  const hookColumns = [
    ['harness', (h) => h.harness],
    ['scope', (h) => h.scope],
    ['config file', (h) => h.file],
    ['entries', (h) => h.entries],
    ['missing', (h) => h.missing],
    ['calls', (h) => h.urls.join(', ')],
    ['current', (h) => (h.missing === 0 && h.urls.every((u) => u === report.url) && (!h.usesShim || report.shim === 'current') ? 'yes' : 'no')],
  ]
  return html`<section>
    <p class=${problems.length ? 'fail' : 'pass'} data-testid="doctor-result">${problems.length ? `${problems.length} problem(s): protection may not be in force` : 'everything checks out; protection is in force'}</p>
    <button onClick=${reload}>Check again</button>
    ${problems.length ? html`<ul data-testid="problems">${problems.map((p) => html`<li><span class="fail">${p.what}</span><br />→ ${p.hint}${p.fix ? ' (`svc doctor --fix` repairs it)' : ''}</li>`)}</ul>` : null}
    <h2>Daemon</h2>
    <${Fields} rows=${[['URL', report.url], ['version', report.daemon.version], ['mode', report.mode], ['session', report.session ? `${report.session.state} ${report.session.signer ?? ''} ${report.session.id ?? ''}` : ''], ['session banner', report.session?.banner], ['expires', report.session?.expiresAt], ['hook shim', report.shim], ['ledger', report.ledger ? `${report.ledger.treeSize} leaves, signed up to ${report.ledger.checkpointSize ?? 'none'}` : '']]} />
    <h2>Hooks per harness</h2>
    ${report.hooks.length ? html`<${Table} testid="hooks" columns=${hookColumns} rows=${report.hooks} />` : html`<p data-testid="no-hooks">No harness has svc hooks installed (<code>svc install</code>).</p>`}
  </section>`
}
