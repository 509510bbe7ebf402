// Sessions: harness sessions with signer tier (banner and colour), expiry and renewal, and a timeline link (the
// Live page filtered to the session).
import { get } from '../api.js'
import { html } from '../html.js'
import { href } from '../route.js'
import { Failure, Table, useLoad } from './common.js'

export function SessionsPage() {
  const { data, error } = useLoad(() => get('/v1/sessions'), [])
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  const columns = [
    ['session', (s) => html`${s.session_id}${s.current ? ' (current)' : ''}`],
    ['signer', (s) => html`<span class=${`tier tier-${s.signer}`}>${s.signer}</span>`],
    ['banner', (s) => s.banner ?? ''],
    ['state', (s) => s.state],
    ['user', (s) => s.user_id ?? ''],
    ['created', (s) => s.created_at],
    ['expires', (s) => s.expires_at],
    ['idle expiry', (s) => s.idle_expires_at ?? ''],
    ['last seen', (s) => s.last_seen_at ?? ''],
    ['timeline', (s) => html`<a href=${href('live', undefined, { session: s.session_id })}>decisions</a>`],
  ]
  return html`<section><${Table} testid="sessions" columns=${columns} rows=${data.sessions} /></section>`
}
