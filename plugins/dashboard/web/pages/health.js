// Health: the daemon's health answer. Hooks per harness (the `svc doctor` checks) are not served here yet.
import { get } from '../api.js'
import { html } from '../html.js'
import { Failure, Fields, useLoad } from './common.js'

export function HealthPage() {
  const { data, error } = useLoad(() => get('/v1/health'), [])
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  return html`<section>
    <${Fields} rows=${Object.entries(data)} />
    <p class="note">Hooks per harness and whether each is current: run <code>svc doctor</code> (not served by the dashboard yet).</p>
  </section>`
}
