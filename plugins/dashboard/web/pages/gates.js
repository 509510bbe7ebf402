// Gates: every gate of the live policy (disabled ones too) with its layer and source file, hits over 24 h / 7 d /
// 30 d and the verdict split (from the signed ledger), the last hit, who disabled it, and the gates never hit.
// A gate links to the Live page filtered to it.
import { get } from '../api.js'
import { html } from '../html.js'
import { href } from '../route.js'
import { Failure, Table, useLoad } from './common.js'

export function GatesPage() {
  const { data, error } = useLoad(async () => {
    const [view, stats] = await Promise.all([get('/v1/policy/view'), get('/v1/gates/stats')])
    const byId = new Map(stats.gates.map((s) => [s.rule_id, s]))
    return view.gates.map((g) => ({ ...g, stats: byId.get(g.id) }))
  }, [])
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  const never = data.filter((g) => !g.stats && !g.disabled)
  const n = (g, key) => g.stats?.[key] ?? 0
  const columns = [
    ['gate', (g) => html`<a href=${href('live', undefined, { gate: g.id })}>${g.id}</a>`],
    ['layer', (g) => g.layer],
    ['source', (g) => g.source],
    ['file', (g) => `${g.file}${g.line ? `:${g.line}` : ''}`],
    ['on hit', (g) => g.on_hit],
    ['24 h', (g) => n(g, 'hits_24h')],
    ['7 d', (g) => n(g, 'hits_7d')],
    ['30 d', (g) => n(g, 'hits_30d')],
    ['deny / alert / allow (30 d)', (g) => (g.stats ? `${g.stats.verdicts.deny} / ${g.stats.verdicts.monitor_alert} / ${g.stats.verdicts.allow}` : '')],
    ['last hit', (g) => g.stats?.last_hit_at ?? 'never'],
    ['disabled', (g) => (g.disabled ? `yes${g.disabled_by ? ` by ${g.disabled_by.who ?? JSON.stringify(g.disabled_by)}` : ''}` : '')],
  ]
  return html`<section>
    <${Table} testid="gates" columns=${columns} rows=${data} />
    <h2>Never hit in 30 days (${never.length})</h2>
    <p data-testid="never-hit">${never.map((g) => g.id).join(', ')}</p>
  </section>`
}
