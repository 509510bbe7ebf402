/** Operator login and an unattested session for benchmarks (an unattested session needs operator rights). */

export const BENCH_PASSWORD = 'bench operator password'

export async function unattestedSession(url: string, password = BENCH_PASSWORD): Promise<string> {
  const login = await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) })
  const { token } = (await login.json()) as { token: string }
  const res = await fetch(`${url}/v1/sessions/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ signer: 'unattested' }),
  })
  const body = (await res.json()) as { session_id?: string; detail?: string }
  if (!body.session_id) throw new Error(`session create failed: ${body.detail}`)
  return body.session_id
}

/** Keeps `clients` concurrent wrong-password logins going until `stop()`; counts the answers by status. */
export function wrongLogins(url: string, clients: number): { stop(): Promise<Record<number, number>> } {
  const counts: Record<number, number> = {}
  let running = true
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const res = await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'not the password' }) })
      await res.text()
      counts[res.status] = (counts[res.status] ?? 0) + 1
    }
  })
  return {
    async stop() {
      running = false
      await Promise.all(loops)
      return counts
    },
  }
}
