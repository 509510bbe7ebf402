// The dashboard shell: login, navigation, the mode banner, and the page the URL names.
import { useEffect, useState } from 'preact/hooks'
import { authMode, get, login, logout, restoreLogin } from './api.js'
import { html, render } from './html.js'
import { href, useRoute } from './route.js'
import { DecisionPage } from './pages/decision.js'
import { FalsePositivePage } from './pages/false-positive.js'
import { GatesPage } from './pages/gates.js'
import { HealthPage } from './pages/health.js'
import { LedgerPage } from './pages/ledger.js'
import { LivePage } from './pages/live.js'
import { McpPage } from './pages/mcp.js'
import { PolicyPage } from './pages/policy.js'
import { SessionsPage } from './pages/sessions.js'

const PAGES = {
  live: ['Live', LivePage],
  decision: ['Decision', DecisionPage],
  fp: ['False positive', FalsePositivePage],
  gates: ['Gates', GatesPage],
  sessions: ['Sessions', SessionsPage],
  mcp: ['MCP servers', McpPage],
  ledger: ['Ledger', LedgerPage],
  policy: ['Policy and mode', PolicyPage],
  health: ['Health', HealthPage],
}
const NAV = ['live', 'gates', 'sessions', 'mcp', 'ledger', 'policy', 'health']

function Login({ onIn }) {
  const [mode, setMode] = useState(null)
  const [error, setError] = useState('')
  useEffect(() => void authMode().then(setMode, () => setMode({ mode: 'password' })), [])
  const submit = async (e) => {
    e.preventDefault()
    setError('')
    try {
      await login(e.target.elements.password.value)
      onIn()
    } catch (err) {
      setError(err.message)
    }
  }
  return html`<main class="login">
    <h1>svc dashboard</h1>
    ${mode && mode.mode !== 'password' ? html`<p class="warn">Operator login mode ${mode.mode}: ${mode.hint}</p>` : null}
    <form onSubmit=${submit}>
      <label>Operator password <input type="password" name="password" autocomplete="current-password" autofocus /></label>
      <button type="submit">Log in</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </main>`
}

/** Mode and policy hash, refreshed when a control entry (mode change, policy apply) goes by. */
export function useDaemonState() {
  const [state, setState] = useState({})
  const refresh = () =>
    get('/v1/policy/view').then(
      (v) => setState({ mode: v.mode, policy_hash: v.policy_hash, status: v.status }),
      () => {},
    )
  // biome-ignore lint/correctness/useExhaustiveDependencies: subscribes once, on mount; refresh reads no render state
  useEffect(() => {
    refresh()
    addEventListener('svc:control', refresh)
    return () => removeEventListener('svc:control', refresh)
  }, [])
  return state
}

function Shell({ onOut }) {
  const route = useRoute()
  const daemon = useDaemonState()
  const [title, Page] = PAGES[route.page] ?? ['Not found', () => html`<p>No page "${route.page}".</p>`]
  useEffect(() => void (document.title = `${title} · svc`), [title])
  const logOut = async () => {
    await logout()
    onOut()
  }
  return html`<div class="shell">
    <header>
      <strong>svc</strong>
      <nav>${NAV.map((p) => html`<a href=${href(p)} class=${route.page === p ? 'active' : ''}>${PAGES[p][0]}</a>`)}</nav>
      <span class=${`mode mode-${daemon.mode}`} data-testid="mode">mode: ${daemon.mode ?? '…'}</span>
      <span class="hash" title="policy hash">policy ${daemon.policy_hash ? daemon.policy_hash.slice(0, 19) : '…'}</span>
      <button onClick=${logOut}>Log out</button>
    </header>
    <main><h1>${title}</h1><${Page} route=${route} /></main>
  </div>`
}

function App() {
  const [state, setState] = useState('checking')
  useEffect(() => void restoreLogin().then((ok) => setState(ok ? 'in' : 'out')), [])
  if (state === 'checking') return html`<p>Loading…</p>`
  return state === 'in' ? html`<${Shell} onOut=${() => setState('out')} />` : html`<${Login} onIn=${() => setState('in')} />`
}

render(html`<${App} />`, document.getElementById('root'))
