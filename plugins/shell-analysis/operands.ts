/**
 * Which arguments of a simple command are files, and which destinations it contacts. Arguments of data
 * programs (`echo`, `printf`), messages (`git commit -m`) and patterns (`grep PATTERN`) are not files.
 */
import type { CallUrl } from '../../core/types.ts'
import { DATA_PROGRAMS, DOWNLOADERS, PATTERN_FIRST, TEXT_OPTIONS } from './programs.ts'
import { bareHttpTarget, devTcpTarget, findUrls, parseCallUrl as parseUrl, socketPathsIn } from './urls.ts'

const HTTP_CLIENTS: ReadonlySet<string> = new Set(['curl', 'wget', 'http', 'https', 'xh', 'xhs', 'httpie', 'curlie', 'aria2c', 'lwp-request', 'GET', 'POST', 'websocat', 'grpcurl'])
const SOCKET_CLIENTS: ReadonlySet<string> = new Set(['nc', 'ncat', 'netcat', 'telnet', 'nmap'])

/** Raw path operands of a command (not yet canonicalised). */
export function pathOperands(program: string, argv: readonly string[]): string[] {
  if (DATA_PROGRAMS.has(program)) return []
  if (program === 'find') {
    const end = argv.findIndex((a, i) => i > 0 && (a.startsWith('-') || a === '(' || a === '!'))
    // The starting points, and the files -fprint, -fprint0, -fprintf and -fls write their listing to.
    const outputs = argv.flatMap((a, i) => (i > 0 && /^-f(print0?|printf|ls)$/.test(a) && argv[i + 1] ? [argv[i + 1]!] : []))
    return [...argv.slice(1, end === -1 ? argv.length : end), ...outputs].filter((a) => a !== '')
  }
  const textOptions = TEXT_OPTIONS.get(program) ?? []
  const out: string[] = []
  let positional = 0
  let patternGiven = false
  let endOfOptions = false
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    // A file named by another spelling: `file:///p` (curl, wget, git, browsers), socat's `FILE:p`/`OPEN:p`/`UNIX-CONNECT:p`.
    const named =
      fileUrlPath(arg) ??
      (program === 'socat' ? /^(?:file|open|gopen|creat|create|pipe|unix(?:-connect|-listen|-client|-sendto|-recv)?|readline-history)[:=]([^,]+)/i.exec(arg)?.[1] : undefined)
    if (named !== undefined) {
      out.push(named)
      continue
    }
    if (!endOfOptions && arg === '--') {
      endOfOptions = true
      continue
    }
    if (!endOfOptions && arg.startsWith('-') && arg.length > 1) {
      const eq = arg.indexOf('=')
      const name = eq === -1 ? arg : arg.slice(0, eq)
      if (['-e', '-f', '--regexp', '--expression', '--file'].includes(name)) patternGiven = true
      if (textOptions.includes(name)) {
        const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
        if (value?.startsWith('@') && value.length > 1) out.push(value.slice(1))
        continue
      }
      if (eq !== -1 && looksLikePath(arg.slice(eq + 1))) out.push(arg.slice(eq + 1))
      continue
    }
    const kv = /^[A-Za-z_][\w.-]*=(.*)$/s.exec(arg)
    if (kv && !endOfOptions) {
      if (looksLikePath(kv[1]!)) out.push(kv[1]!)
      continue
    }
    if (arg.startsWith('@') && arg.length > 1) {
      out.push(arg.slice(1))
      continue
    }
    const at = /^[\w.-]+=@(.+)$/s.exec(arg)
    if (at) {
      out.push(at[1]!)
      continue
    }
    positional++
    if (NETWORK_PROGRAMS.has(program) && !isOutputValue(argv[i - 1])) continue
    if (positional === 1 && PATTERN_FIRST.has(program) && !patternGiven) continue
    if (positional === 1 && (program === 'git' || program === 'gh' || program === 'npm' || program === 'docker')) continue
    if (arg.includes('://')) continue
    out.push(arg)
  }
  return out.filter((p) => p !== '' && !p.startsWith('/dev/fd/') && !p.includes('\n') && p.length <= 4096)
}

/** The local path of a `file:` URL (`file:///home/u/x`, `file://localhost/x`, `file:/x`), percent-decoded. */
function fileUrlPath(arg: string): string | undefined {
  const m = /^file:(?:\/\/(?:localhost)?)?(\/[^?#]*)/i.exec(arg.replace(/^-[-\w]*=/, ''))
  if (!m) return undefined
  try {
    return decodeURIComponent(m[1]!)
  } catch {
    return m[1]!
  }
}

const NETWORK_PROGRAMS: ReadonlySet<string> = new Set([
  'curl',
  'wget',
  'http',
  'https',
  'xh',
  'xhs',
  'httpie',
  'curlie',
  'aria2c',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'socat',
  'ssh',
  'ping',
  'dig',
  'nslookup',
  'host',
  'nmap',
  'websocat',
  'grpcurl',
])

/** Options of network clients whose value is a local file (`curl -o out`, `curl -T file`). */
function isOutputValue(prev: string | undefined): boolean {
  return (
    prev !== undefined &&
    ['-o', '--output', '-O', '--output-document', '-T', '--upload-file', '-K', '--config', '-i', '-F', '--form', '-P', '--directory-prefix', '--post-file', '--body-file'].includes(
      prev,
    )
  )
}

function looksLikePath(value: string): boolean {
  return value.startsWith('/') || value.startsWith('~') || value.startsWith('.') || value.startsWith('$HOME') || value.includes('/')
}

/** Network destinations a command names: URLs in any argument, HTTP client targets, sockets. */
export function urlOperands(program: string, argv: readonly string[], redirectTargets: readonly string[]): CallUrl[] {
  const out: CallUrl[] = []
  const add = (u: CallUrl | undefined): void => {
    if (u && !out.some((o) => o.raw === u.raw)) out.push(u)
  }
  const data = DATA_PROGRAMS.has(program)
  for (const target of redirectTargets) add(devTcpTarget(target))
  if (data) return out
  const args = argv.slice(1)
  for (const arg of args) {
    for (const raw of findUrls(arg)) add(parseUrl(raw))
    add(devTcpTarget(arg))
    for (const u of socketPathsIn(arg)) add(u)
  }
  if (HTTP_CLIENTS.has(program) || DOWNLOADERS.has(program)) {
    for (const arg of positionals(args)) add(bareHttpTarget(arg))
  }
  if (SOCKET_CLIENTS.has(program)) {
    const pos = positionals(args)
    const [host, port] = pos
    if (host !== undefined && port !== undefined && /^\d{1,5}$/.test(port)) add(parseUrl(`tcp://${host.includes(':') ? `[${host}]` : host}:${port}`))
    else if (host !== undefined) add(bareHttpTarget(host))
  }
  if (program === 'socat') {
    for (const arg of args) {
      const m = /^(?:tcp\d?|tcp\d?-connect|udp\d?|udp\d?-connect|open-ssl|ssl):(\[[^\]]+\]|[^:,]+):(\d{1,5})/i.exec(arg)
      if (m) add(parseUrl(`tcp://${m[1]}:${m[2]}`))
    }
  }
  return out
}

/** Arguments that are not options (values of `-x VALUE` options are included: harmless for URL spotting). */
function positionals(args: readonly string[]): string[] {
  return args.filter((a) => !a.startsWith('-'))
}
