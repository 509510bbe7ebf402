// Small pieces the pages share: loading a resource, showing a problem, a key/value table, verification steps.
import { useEffect, useState } from 'preact/hooks'
import { html } from '../html.js'

/** Runs `load` when `deps` change; answers { data, error, reload }. */
export function useLoad(load, deps) {
  const [state, setState] = useState({})
  const run = () =>
    load().then(
      (data) => setState({ data }),
      (error) => setState({ error }),
    )
  // A new subject (another seq) drops the old answer at once: no stale page, no stale link, while it loads.
  // biome-ignore-start lint/correctness/useExhaustiveDependencies: the caller's deps name the subject; load is a new closure on every render
  useEffect(() => {
    setState({})
    run()
  }, deps)
  // biome-ignore-end lint/correctness/useExhaustiveDependencies: the caller's deps name the subject
  return { ...state, reload: run }
}

export function Failure({ error }) {
  return error ? html`<p class="error" role="alert">${error.message}</p>` : null
}

export function Fields({ rows }) {
  return html`<dl class="fields">${rows.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => html`<dt>${k}</dt><dd>${typeof v === 'object' ? JSON.stringify(v) : String(v)}</dd>`)}</dl>`
}

export function Steps({ steps, testid }) {
  if (!steps) return null
  const ok = steps.every((s) => s.ok)
  return html`<div class="steps" data-testid=${testid}>
    <p class=${ok ? 'pass' : 'fail'} data-testid=${`${testid}-result`}>${ok ? 'verified: every step passed' : `FAILED at: ${steps.find((s) => !s.ok).name}`}</p>
    <ol>${steps.map((s) => html`<li class=${s.ok ? 'pass' : 'fail'} data-ok=${String(s.ok)}><span class="mark">${s.ok ? 'passed' : 'failed'}</span> ${s.name}${s.ok ? '' : html`: <span class="detail">${s.detail}</span>`}</li>`)}</ol>
  </div>`
}

export function Table({ columns, rows, testid }) {
  return html`<table data-testid=${testid}>
    <thead><tr>${columns.map(([label]) => html`<th>${label}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr>${columns.map(([, cell]) => html`<td>${cell(r)}</td>`)}</tr>`)}</tbody>
  </table>`
}

export const when = (ms) => (ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '')
