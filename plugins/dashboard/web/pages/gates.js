// Gates: every live gate with its layer, source file, hit count and last hit, disabled state and who disabled it,
// and the gates never hit. A gate links to the Live page filtered to it.
import { get } from '../api.js'
import { html } from '../html.js'
import { href } from '../route.js'
import { Failure, Table, useLoad } from './common.js'

export function GatesPage() {
  const { data, error } = useLoad(async () => {
    const [gates, view] = await Promise.all([get('/v1/gates'), get('/v1/policy/view')])
    const detail = new Map(view.gates.map((g) => [`${g.source}\u0000${g.id}`, g]))
    return gates.gates.map((g) => ({ ...g, ...(detail.get(`${g.source}\u0000${g.id}`) ?? {}), matched_count: g.matched_count, last_hit_at: g.last_hit_at }))
  }, [])
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  const never = data.filter((g) => g.matched_count === 0)
  const columns = [
    ['gate', (g) => html`<a href=${href('live', undefined, { gate: g.id })}>${g.id}</a>`],
    ['layer', (g) => g.layer],
    ['source', (g) => g.source],
    ['file', (g) => (g.file ? `${g.file}${g.line ? `:${g.line}` : ''}` : '')],
    ['on hit', (g) => g.on_hit],
    ['hits', (g) => g.matched_count],
    ['last hit', (g) => g.last_hit_at ?? 'never'],
    ['disabled', (g) => (g.disabled ? `yes${g.disabled_by ? ` (${g.disabled_by.who ?? JSON.stringify(g.disabled_by)})` : ''}` : '')],
  ]
  return html`<section>
    <${Table} testid="gates" columns=${columns} rows=${data} />
    <h2>Never hit (${never.length})</h2>
    <p>${never.map((g) => g.id).join(', ')}</p>
    <p class="note">Hits are counted since the daemon started; per-period counts (24 h / 7 d / 30 d) and the verdict split are not offered yet.</p>
  </section>`
}
