/**
 * URL parsing and host canonicalisation. Hosts are compared after the WHATWG parser has normalised them,
 * so `127.1`, `0x7f.0.0.1`, `2130706433`, `[::ffff:127.0.0.1]`, `LOCALHOST.` and userinfo tricks
 * (`http://github.com@127.0.0.1/`) all reduce to the host that is actually contacted.
 */
import type { CallUrl } from '../../core/types.ts'

const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21, ssh: 22, git: 9418 }

/** Parses an absolute URL string; undefined when it is not one. */
export function parseUrl(raw: string): CallUrl | undefined {
  const trimmed = raw.trim()
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)/.exec(trimmed)
  if (!m) return undefined
  const scheme = m[1].toLowerCase()
  const authority = m[2].slice(m[2].lastIndexOf('@') + 1)
  const hostPort = splitHostPort(authority)
  if (!hostPort) return undefined
  const host = canonicalHost(hostPort.host)
  if (host === undefined) return undefined
  const port = hostPort.port ?? DEFAULT_PORTS[scheme]
  return port === undefined ? { raw: trimmed, scheme, host } : { raw: trimmed, scheme, host, port }
}

/** `host:port`, `[v6]:port`, or a bare host. */
export function splitHostPort(authority: string): { host: string; port?: number } | undefined {
  const v6 = /^\[([^\]]*)\](?::(\d*))?$/.exec(authority)
  if (v6) return withPort(`[${v6[1]}]`, v6[2])
  const idx = authority.lastIndexOf(':')
  if (idx === -1) return { host: authority }
  if (authority.indexOf(':') !== idx) return { host: `[${authority}]` }
  return withPort(authority.slice(0, idx), authority.slice(idx + 1))
}

function withPort(host: string, port: string | undefined): { host: string; port?: number } | undefined {
  if (port === undefined || port === '') return { host }
  if (!/^\d{1,5}$/.test(port)) return undefined
  const n = Number(port)
  return n > 65535 ? undefined : { host, port: n }
}

/**
 * Canonical host: lower-case, IDNA-mapped, IPv4 in dotted decimal, IPv6 without brackets (IPv4-mapped
 * IPv6 becomes IPv4), no trailing dot. Undefined when the WHATWG parser rejects it.
 */
export function canonicalHost(host: string): string | undefined {
  if (host === '') return undefined
  let parsed: string
  try {
    parsed = new URL(`http://${host}/`).hostname
  } catch {
    return undefined
  }
  parsed = parsed.replace(/\.+$/, '')
  if (parsed.startsWith('[')) {
    const inner = parsed.slice(1, -1)
    return mappedIpv4(inner) ?? inner
  }
  // A trailing dot can hide a numeric IPv4 form from the parser (`127.1.`): parse again without it.
  if (/^[0-9a-fx.]+$/i.test(parsed) && host.endsWith('.')) return canonicalHost(parsed) ?? parsed
  return parsed
}

function mappedIpv4(v6: string): string | undefined {
  const m = /^(?:0*:)*:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(v6) ?? /^::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(v6)
  if (!m) return undefined
  const hi = parseInt(m[1], 16)
  const lo = parseInt(m[2], 16)
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
}

/** Absolute URLs embedded anywhere in a string (arguments, inline code). */
export function findUrls(text: string): string[] {
  return [...text.matchAll(/\b[a-zA-Z][a-zA-Z0-9+.-]{1,15}:\/\/[^\s'"`<>\\)]+/g)].map((m) => m[0]).slice(0, 32)
}

/**
 * A scheme-less destination as HTTP clients accept it: `localhost:7878/v1`, `127.1:7879`, httpie's
 * `:7878/path` (meaning localhost). Undefined when the string does not look like one.
 */
export function bareHttpTarget(arg: string): CallUrl | undefined {
  const shorthand = /^:(\d{1,5})(\/.*)?$/.exec(arg)
  if (shorthand) return parseUrl(`http://localhost:${shorthand[1]}${shorthand[2] ?? ''}`)
  if (!/^(\[[0-9a-fA-F:.]+\]|[\w.-]+)(:\d{1,5})?([/?#].*)?$/.test(arg)) return undefined
  if (!/[.:[]/.test(arg) && arg !== 'localhost' && !arg.startsWith('localhost/')) return undefined
  if (/^[\w-]+\.(json|ya?ml|txt|md|sh|js|ts|py|html|tar|gz|zip|log|csv|toml|lock)$/i.test(arg)) return undefined
  return parseUrl(`http://${arg}`)
}

/** `/dev/tcp/HOST/PORT` (bash network redirection). */
export function devTcpTarget(path: string): CallUrl | undefined {
  const m = /^\/dev\/(tcp|udp)\/([^/]+)\/(\d{1,5})$/.exec(path)
  return m ? parseUrl(`${m[1]}://${m[2].includes(':') ? `[${m[2]}]` : m[2]}:${m[3]}`) : undefined
}
