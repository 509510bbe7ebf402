// The page's only door to the daemon: same-origin fetches to the dashboard, which answers them through the API.
// Every request carries the secret of this login (X-CSRF-Token): the dashboard gives it out only in the login
// answer, and the page keeps it in this tab's sessionStorage (no other origin, no other port, reads it). The
// cookie alone, which the browser also sends to other ports of 127.0.0.1, is not enough.
const KEY = 'svc.dashboard.secret'
let csrf = sessionStorage.getItem(KEY)
const secret = () => ({ 'x-csrf-token': csrf ?? '' })
/** The header carrying this login's secret (for the live stream, stream.js). */
export const loginSecret = secret

export class Problem extends Error {
  constructor(status, body) {
    super(body?.detail ?? `HTTP ${status}`)
    this.status = status
    this.body = body
  }
}

async function answer(res) {
  const text = await res.text()
  let body
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = text
  }
  if (!res.ok) throw new Problem(res.status, body)
  return body
}

export async function restoreLogin() {
  if (!csrf) return false
  const res = await fetch('/session', { credentials: 'same-origin', headers: secret() })
  if (res.ok) return true
  sessionStorage.removeItem(KEY)
  csrf = null
  return false
}

export async function authMode() {
  return answer(await fetch('/auth/mode'))
}

export async function login(password) {
  const body = await answer(await fetch('/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) }))
  csrf = body.csrf
  sessionStorage.setItem(KEY, csrf)
  return body
}

export async function logout() {
  await fetch('/logout', { method: 'POST', headers: secret() })
  sessionStorage.removeItem(KEY)
  csrf = null
}

/** What `svc doctor` finds, computed by the daemon (GET /doctor). */
export async function doctor() {
  return answer(await fetch('/doctor', { headers: secret() }))
}

export async function get(path) {
  return answer(await fetch(`/api${path}`, { headers: secret() }))
}

export async function send(method, path, body) {
  return answer(await fetch(`/api${path}`, { method, headers: { 'content-type': 'application/json', ...secret() }, body: JSON.stringify(body ?? {}) }))
}
