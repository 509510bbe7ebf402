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
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase()
  if (!host && url.protocol !== 'file:') return undefined
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol]
  return { raw, scheme: url.protocol.replace(/:$/, ''), host, ...(port === undefined ? {} : { port }) }
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
