// The page's only door to the daemon: same-origin fetches to the dashboard, which answers them through the API.
// Changes carry the CSRF token of this login (held in memory only, fetched from GET /session).
let csrf = null

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
  const res = await fetch('/session', { credentials: 'same-origin' })
  if (!res.ok) return false
  csrf = (await res.json()).csrf
  return true
}

export async function authMode() {
  return answer(await fetch('/auth/mode'))
}

export async function login(password) {
  const body = await answer(await fetch('/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) }))
  csrf = body.csrf
  return body
}

export async function logout() {
  await fetch('/logout', { method: 'POST', headers: { 'x-csrf-token': csrf ?? '' } })
  csrf = null
}

/** What `svc doctor` finds, computed by the daemon (GET /doctor). */
export async function doctor() {
  return answer(await fetch('/doctor'))
}

export async function get(path) {
  return answer(await fetch(`/api${path}`))
}

export async function send(method, path, body) {
  return answer(await fetch(`/api${path}`, { method, headers: { 'content-type': 'application/json', 'x-csrf-token': csrf ?? '' }, body: JSON.stringify(body ?? {}) }))
}
