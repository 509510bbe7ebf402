/**
 * The relay's one way to the daemon: POST /v1/mcp/proxy/{event} on a literal loopback address, with a fresh
 * nonce, and an answer believed only with `x-svc-hook: 1` and a valid `x-svc-mac` under `$SVC_HOME/hook.key`
 * (the hook shim's scheme, hook-key/). Anything else (daemon down, slower than the timeout, a stand-in
 * on the port, a replayed answer) throws: the relay turns that into a deny (fail closed).
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { hookMac } from '../../hook-key/index.ts'

export const PROXY_MAC_SCOPE = 'mcp-proxy'
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}$/

export interface DaemonLink {
  readonly url: string
  readonly svcHome: string
  readonly timeoutMs: number
}

export class DaemonUnavailable extends Error {}

function hookKey(svcHome: string): string {
  const path = join(svcHome, 'hook.key')
  let key: string
  try {
    key = readFileSync(path, 'utf8').trim()
  } catch {
    throw new DaemonUnavailable(`cannot read the hook key ${path}; run \`svc install\``)
  }
  if (!/^[0-9a-f]{64}$/.test(key)) throw new DaemonUnavailable(`the hook key ${path} is malformed; run \`svc install\``)
  return key
}

/** Posts `body` for `event`; resolves the daemon's authenticated JSON answer. */
export function askDaemon(link: DaemonLink, event: string, body: unknown): Promise<Record<string, unknown>> {
  if (!LOOPBACK.test(link.url)) return Promise.reject(new DaemonUnavailable(`the daemon URL '${link.url}' is not a literal loopback address (http://127.0.0.1:PORT)`))
  let key: string
  try {
    key = hookKey(link.svcHome)
  } catch (err) {
    return Promise.reject(err)
  }
  const nonce = randomBytes(16).toString('hex')
  const payload = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(`${link.url}/v1/mcp/proxy/${event}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'x-svc-nonce': nonce },
      timeout: link.timeoutMs,
    })
    const timer = setTimeout(() => req.destroy(new DaemonUnavailable(`the svc daemon at ${link.url} did not answer within ${link.timeoutMs} ms`)), link.timeoutMs)
    req.on('timeout', () => req.destroy(new DaemonUnavailable(`the svc daemon at ${link.url} did not answer within ${link.timeoutMs} ms`)))
    req.on('error', (err) => {
      clearTimeout(timer)
      reject(err instanceof DaemonUnavailable ? err : new DaemonUnavailable(`the svc daemon at ${link.url} did not answer (${(err as NodeJS.ErrnoException).code ?? err.message})`))
    })
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', () => undefined)
      res.on('end', () => {
        clearTimeout(timer)
        const text = Buffer.concat(chunks).toString('utf8')
        if (res.statusCode !== 200) return reject(new DaemonUnavailable(`the svc daemon answered HTTP ${res.statusCode}`))
        if (res.headers['x-svc-hook'] !== '1' || res.headers['x-svc-mac'] !== hookMac(key, nonce, PROXY_MAC_SCOPE, event, text)) {
          return reject(new DaemonUnavailable(`the answer at ${link.url} carries no valid svc MAC (not the svc daemon, or a replayed answer)`))
        }
        try {
          resolve(JSON.parse(text) as Record<string, unknown>)
        } catch {
          reject(new DaemonUnavailable('the svc daemon sent an answer that is not JSON'))
        }
      })
    })
    req.end(payload)
  })
}
