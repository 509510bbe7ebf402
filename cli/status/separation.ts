/**
 * Whether the daemon is out of the developer's reach by the OS: the account that owns the socket listening on the
 * daemon's port, compared with the account running `svc status`. Read from the kernel's socket tables (Linux's
 * /proc/net/tcp and tcp6 name each socket's owner), so it holds whatever started the daemon.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

export interface Separation {
  /** `separate`: another account runs the daemon; `same-user`: the caller's own; `unknown`: not readable here. */
  readonly state: 'separate' | 'same-user' | 'unknown'
  readonly uid?: number
  readonly user?: string
}

const LISTEN = '0A'

/** The uid owning a listening TCP socket on `port`, from /proc/net/tcp{,6}; undefined when none is found. */
export function listenerUid(port: number, tables = ['/proc/net/tcp', '/proc/net/tcp6']): number | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const table of tables) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid …
      const fields = line.trim().split(/\s+/)
      if (fields.length > 7 && fields[1]!.endsWith(`:${hexPort}`) && fields[3] === LISTEN) return Number(fields[7])
    }
  }
  return undefined
}

function accountName(uid: number): string | undefined {
  try {
    return execFileSync('getent', ['passwd', String(uid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(':')[0] || undefined
  } catch {
    return undefined
  }
}

/** The daemon at `url` (a loopback URL) compared with this process's account. */
export function daemonSeparation(url: string, self = process.getuid?.()): Separation {
  const port = Number(new URL(url).port || 80)
  const uid = listenerUid(port)
  if (uid === undefined || self === undefined) return { state: 'unknown' }
  const user = accountName(uid)
  return { state: uid === self ? 'same-user' : 'separate', uid, ...(user ? { user } : {}) }
}

/** The status line: what holds, and how to get there when it does not. */
export function separationLine(s: Separation): string {
  const who = `${s.user ?? 'uid'} (uid ${s.uid})`
  if (s.state === 'separate') return `separation: the daemon runs as ${who}, not as you: code your agents run cannot read its keys, rewrite its policy or signal it`
  if (s.state === 'same-user')
    return `separation: none, the daemon runs as you (${who}): code your agents run could read its keys or stop it; \`sudo svc service install --system --for $USER\` gives it its own user`
  return 'separation: unknown (the daemon is not reachable, or its socket owner is not readable here)'
}
