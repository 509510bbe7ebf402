/**
 * Turns an effective argv into the ShellCommand gates see, with its canonical paths, writes and URLs.
 */
import type { CallUrl, ShellCommand } from '../../core/types.ts'
import { implicitOutputs, operandRoles } from './operand-roles.ts'
import { treeWriteRoots } from './tree-writes.ts'
import { readsHomeTree, treeReadRoots } from './tree-reads.ts'
import { containerAccess } from './container-mounts.ts'
import { pathOperands, urlOperands } from './operands.ts'
import { canonicalPaths, intoDirectory, lexicalPath } from './paths.ts'
import type { AnalysisState, Redirects, Scope } from './state.ts'
import { parseCallUrl } from './urls.ts'

const MAX_OPERANDS = 256

/** What a caller knows beyond the argv when recording a command. */
export interface RecordExtras {
  /** Extra raw paths (e.g. path literals found in inline code). */
  readonly paths?: readonly string[]
  /** argv indexes that are code or command strings, not operands. */
  readonly exclude?: readonly number[]
  /** Destinations named outside the argv (a curl config file, a wget URL list). */
  readonly urls?: readonly CallUrl[]
  /** Operands that are quoted text with wildcard characters (`'*'`): not expanded against the disk. */
  readonly literal?: ReadonlySet<string>
  /** Directories a tree lands in (`cp -rT dir ~/.gemini`, `unzip -d ~`): written, whatever files they get. */
  readonly writes?: readonly string[]
}

/** Records one simple command and returns it. */
export function recordCommand(
  st: AnalysisState,
  scope: Scope,
  program: string,
  argv: readonly string[],
  via: readonly string[],
  redirects: Redirects,
  extras: RecordExtras = {},
): ShellCommand {
  const canon = canonicaliser(st, scope, extras.literal)
  const roles = operandRoles(program, argv)
  const all = [
    ...new Set(
      pathOperands(
        program,
        argv.map((a, i) => (extras.exclude?.includes(i) || roles.used.has(i) ? '' : a)),
      ),
    ),
  ]
  // Symlinks and wildcards cost disk lookups: past MAX_OPERANDS, operands get the lexical spelling only
  // (never dropped, so padding a command with junk operands cannot hide `~` at its end).
  const operands = [...all.slice(0, MAX_OPERANDS), ...intoDirectory(program, argv, all.slice(0, MAX_OPERANDS), { home: st.options.home, cwd: scope.cwd, disk: st.disk })]
  const overflow = all.slice(MAX_OPERANDS).flatMap((o) => lexicalPath(o, { home: st.options.home, cwd: scope.cwd }) ?? [])
  const written = [...roles.written].map((i) => argv[i]!).filter((a) => all.includes(a))
  // An in-place edit (`sed -i`, `perl -pi`) reads its files and writes them back: both, for the gates.
  const inPlace = editsInPlace(program, argv) ? all : []
  const ctx = { home: st.options.home, cwd: scope.cwd, disk: st.disk }
  const container = containerAccess(program, argv)
  const trees = [...treeWriteRoots(program, argv, ctx), ...(container?.sources ?? [])]
  if (
    readsHomeTree(
      [
        ...treeReadRoots(
          program,
          argv.map((a, i) => (extras.exclude?.includes(i) ? '' : a)),
        ),
        ...(container?.sources ?? []),
      ],
      ctx,
    )
  )
    st.signals.add('home_tree_read')
  if (container?.escape) st.signals.add('container_escape')
  const writes = canon([
    ...(program === 'tee' ? [...redirects.writes, ...operands.filter((o) => !o.startsWith('-'))] : redirects.writes),
    ...written,
    ...inPlace,
    ...trees,
    ...(extras.writes ?? []),
    ...implicitOutputs(program, argv),
  ])
  const paths = unique([...canon([...operands, ...redirects.reads, ...(extras.paths ?? [])]), ...overflow, ...writes])
  const urls = [...urlOperands(program, argv, [...redirects.reads, ...redirects.writes]), ...(extras.urls ?? []), ...proxyUrls(scope)]
  const readsToo = canon([...(container?.sources ?? []), ...inPlace])
  const command: ShellCommand = {
    program,
    argv: [...argv],
    text: argv.join(' '),
    via: [...via],
    ...(paths.length > 0 ? { paths } : {}),
    ...(writes.length > 0 ? { writes } : {}),
    ...(readsToo.length > 0 ? { readsToo } : {}),
    ...(urls.length > 0 ? { urls } : {}),
  }
  st.record(command)
  return command
}

/** Canonical spellings of raw paths, including through symlinks created earlier in the same command. */
function canonicaliser(st: AnalysisState, scope: Scope, literal?: ReadonlySet<string>): (raws: readonly string[]) => string[] {
  const ctx = { home: st.options.home, cwd: scope.cwd, disk: st.disk }
  return (raws) => {
    const out = raws.flatMap((r) => canonicalPaths(r, ctx, !literal?.has(r)))
    for (const path of [...out]) {
      for (const [link, target] of st.links) {
        if (path === link || path.startsWith(`${link}/`)) out.push(...canonicalPaths(target + path.slice(link.length), ctx))
      }
    }
    return unique(out)
  }
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)]
}

/**
 * Adds a compound statement's redirections (`{ a; b; } > file`) to every command recorded since `mark`.
 */
export function addRedirects(st: AnalysisState, scope: Scope, mark: number, redirects: Redirects): void {
  if (redirects.reads.length === 0 && redirects.writes.length === 0) return
  const canon = canonicaliser(st, scope)
  const writes = canon(redirects.writes)
  const reads = canon(redirects.reads)
  for (let i = mark; i < st.commands.length; i++) {
    const c = st.commands[i]!
    const allWrites = unique([...(c.writes ?? []), ...writes])
    const allPaths = unique([...(c.paths ?? []), ...reads, ...writes])
    st.commands[i] = { ...c, ...(allPaths.length > 0 ? { paths: allPaths } : {}), ...(allWrites.length > 0 ? { writes: allWrites } : {}) }
  }
}

/** Proxy variables HTTP clients send every request through (curl, wget, git, pip, npm, requests). */
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY', 'ftp_proxy', 'FTP_PROXY']

/** The proxies set for a command (`http_proxy=http://127.0.0.1:7878 curl …` talks to that port whatever the URL says). */
function proxyUrls(scope: Scope): CallUrl[] {
  const out: CallUrl[] = []
  for (const name of PROXY_VARIABLES) {
    const value = scope.vars.get(name)
    if (value === undefined || value.trim() === '') continue
    const url = parseCallUrl(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`)
    if (url) out.push(url)
  }
  return out
}

/**
 * Programs that rewrite the files they are given: sed, perl and ruby with `-i`, awk with the inplace extension,
 * ed/ex (whose scripts write back with `w`), and truncate/sponge.
 */
function editsInPlace(program: string, argv: readonly string[]): boolean {
  const args = argv.slice(1)
  switch (program) {
    case 'sed':
    case 'gsed':
      return args.some((a) => a === '--in-place' || a.startsWith('--in-place=') || /^-[a-zA-Z]*i/.test(a))
    case 'perl':
    case 'ruby':
      return args.some((a) => /^-[a-zA-Z]*i/.test(a))
    case 'awk':
    case 'gawk':
      return args.some((a, i) => (a === '-i' && args[i + 1] === 'inplace') || a === '-iinplace' || a === '--include=inplace')
    case 'ed':
    case 'ex':
    case 'truncate':
    case 'sponge':
      return true
    default:
      return false
  }
}
