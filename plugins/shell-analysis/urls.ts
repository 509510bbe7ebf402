/**
 * Network destinations written in shell arguments. Parsing and host canonicalisation (`127.1`,
 * `0x7f.0.0.1`, `2130706433`, `[::ffff:127.0.0.1]`, userinfo, trailing dots) are the core's
 * `parseCallUrl`; this module finds the spellings a shell command uses that are not absolute URLs.
 */
import { parseCallUrl, type CallUrl } from '../../core/index.ts'

export { parseCallUrl }

/** Absolute URLs of any scheme embedded in a string (arguments, inline code). */
export function findUrls(text: string): string[] {
  // Every match contains `://`: most arguments have none, and the scan below tries a scheme at every letter.
  if (!text.includes('://')) return []
  return [...text.matchAll(/\b[a-zA-Z][a-zA-Z0-9+.-]{1,15}:\/\/[^\s'"`<>\\)]+/g)].map((m) => m[0]).slice(0, 32)
}

/**
 * A scheme-less destination as HTTP clients accept it: `localhost:7878/v1`, `127.1:7879`, httpie's
 * `:7878/path` (meaning localhost). Undefined when the string does not look like one.
 */
export function bareHttpTarget(arg: string): CallUrl | undefined {
  const shorthand = /^:(\d{1,5})(\/.*)?$/.exec(arg)
  if (shorthand) return parseCallUrl(`http://localhost:${shorthand[1]}${shorthand[2] ?? ''}`)
  if (!/^(\[[0-9a-fA-F:.]+\]|[\w.-]+)(:\d{1,5})?([/?#].*)?$/.test(arg)) return undefined
  if (!/[.:[]/.test(arg) && arg !== 'localhost' && !arg.startsWith('localhost/')) return undefined
  if (/^[\w-]+\.(json|ya?ml|txt|md|sh|js|ts|py|html|tar|gz|zip|log|csv|toml|lock)$/i.test(arg)) return undefined
  return parseCallUrl(`http://${arg}`)
}

/** `/dev/tcp/HOST/PORT` (bash network redirection). */
export function devTcpTarget(path: string): CallUrl | undefined {
  const m = /^\/dev\/(tcp|udp)\/([^/]+)\/(\d{1,5})$/.exec(path)
  return m ? parseCallUrl(`${m[1]}://${m[2]!.includes(':') ? `[${m[2]}]` : m[2]}:${m[3]}`) : undefined
}

/** Socket special files inside any text: bash `/dev/tcp/HOST/PORT`, gawk `/inet/tcp/LPORT/HOST/PORT`. */
export function socketPathsIn(text: string): CallUrl[] {
  const out: CallUrl[] = []
  for (const m of text.matchAll(/\/dev\/(tcp|udp)\/([^/\s'"]+)\/(\d{1,5})|\/inet[46]?\/(tcp|udp)\/\d+\/([^/\s'"]+)\/(\d{1,5})/g)) {
    const host = m[2] ?? m[5]!
    const url = parseCallUrl(`${m[1] ?? m[4]}://${host.includes(':') ? `[${host}]` : host}:${m[3] ?? m[6]}`)
    if (url) out.push(url)
    if (out.length >= 16) break
  }
  return out
}
