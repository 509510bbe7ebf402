/**
 * URL parsing for host predicates. The WHATWG parser already canonicalises IPv4 spellings such as
 * `127.1`, `0x7f.0.0.1` and `2130706433`; we also drop userinfo, a trailing dot and IPv6 brackets.
 */
import type { CallUrl } from '../types.ts'

/** Parses one URL; undefined when it is not an absolute URL. */
export function parseCallUrl(raw: string): CallUrl | undefined {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return undefined
  }
  const host = canonicalHost(url.hostname)
  if (!host && url.protocol !== 'file:') return undefined
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol]
  return { raw, scheme: url.protocol.replace(/:$/, ''), host, ...(port === undefined ? {} : { port }) }
}

/**
 * Canonical host: the WHATWG http parser's form (IPv4 numbers in dotted decimal even for non-special
 * schemes such as `tcp://127.1`), no trailing dot, IPv6 without brackets, IPv4-mapped IPv6 as IPv4.
 */
function canonicalHost(hostname: string): string {
  let host = hostname.replace(/\.+$/, '').toLowerCase()
  if (host === '') return host
  try {
    host = new URL(`http://${host}/`).hostname.replace(/\.+$/, '')
  } catch {
    // Not a valid http host (e.g. a non-special scheme's opaque host): keep the lower-cased form.
  }
  const v6 = /^\[(.*)\]$/.exec(host)?.[1]
  if (v6 === undefined) return host
  const mapped = /^(?:(?:0{1,4}:){5}|::(?:0{1,4}:)*)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6)
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16)
    const lo = parseInt(mapped[2]!, 16)
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
  }
  return v6
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443, 'ftp:': 21 }

const URL_IN_TEXT = /\b(?:https?|wss?|ftp|file):\/\/[^\s'"`<>|;&)]+/gi

/** Finds URLs written in free text (e.g. a shell command). */
export function findUrls(text: string): CallUrl[] {
  const out: CallUrl[] = []
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const parsed = parseCallUrl(m[0])
    if (parsed) out.push(parsed)
  }
  return out
}
