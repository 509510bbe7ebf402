// Policy and mode: effective layers and files with status and errors, and the mode toggle (a reason is required
// and kept in the mode_changed ledger entry).
import { useState } from 'preact/hooks'
import { get, send } from '../api.js'
import { html } from '../html.js'
import { Failure, Fields, Table, useLoad } from './common.js'

export function PolicyPage() {
  const { data, error, reload } = useLoad(() => get('/v1/policy/view'), [])
  const [problem, setProblem] = useState(null)
  const [changed, setChanged] = useState(null)
  if (error) return html`<${Failure} error=${error} />`
  if (!data) return html`<p>Loading…</p>`
  const other = data.mode === 'firewall' ? 'monitor' : 'firewall'
  const toggle = async (e) => {
    e.preventDefault()
    setProblem(null)
    const reason = e.target.elements.reason.value.trim()
    if (!reason) return setProblem(new Error('a reason is required to change the mode'))
    try {
      const r = await send('PATCH', '/v1/mode', { mode: other, reason })
      setChanged(`mode ${r.previous} -> ${r.mode} (ledger seq ${r.ledger_seq})`)
      dispatchEvent(new Event('svc:control'))
      reload()
    } catch (err) {
      setProblem(err)
    }
  }
  return html`<section>
    <${Fields} rows=${[['mode', data.mode], ['policy hash', data.policy_hash], ['status', data.status]]} />
    <form class="inline" onSubmit=${toggle}>
      <label>Reason <input name="reason" size="50" data-testid="mode-reason" /></label>
      <button type="submit" data-testid="mode-toggle">Switch to ${other}</button>
    </form>
    ${changed ? html`<p class="pass">${changed}</p>` : null}
    <${Failure} error=${problem} />
    <h2>Packs on</h2>
    <${Table} testid="packs" columns=${[
      [
        'pack',
        (f) =>
          f.path
            .split('/')
            .pop()
            .replace(/\.ya?ml$/, ''),
      ],
      ['locked by', (f) => (f.source === 'bundle' ? 'signed bundle' : '')],
      ['gates', (f) => f.gates],
      ['status', (f) => f.status],
    ]} rows=${packFiles(data.files)} />
    <p>A pack that is off is not listed; <code>svc policy packs</code> shows every pack and its severity.</p>
    <h2>Files</h2>
    <${Table} testid="files" columns=${[['layer', (f) => f.layer], ['source', (f) => f.source], ['path', (f) => f.path], ['status', (f) => f.status], ['gates', (f) => f.gates], ['error', (f) => (f.error ? `${f.error.code}: ${f.error.message}` : '')]]} rows=${data.files} />
    ${data.warnings?.length ? html`<h2>Warnings</h2><ul>${data.warnings.map((w) => html`<li>${typeof w === 'string' ? w : JSON.stringify(w)}</li>`)}</ul>` : null}
  </section>`
}

// The shipped packs (and a bundle's copies) are the daemon layer's files, apart from the operator's own policy.yaml.
function packFiles(files) {
  return files.filter((f) => f.layer === 'daemon' && (f.source === 'daemon' || f.source === 'bundle') && !f.path.endsWith('/policy.yaml') && f.status !== 'absent')
}
