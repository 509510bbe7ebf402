/**
 * Values svc cannot compute are not harmless. A recursive delete, a disk write or a recursive permission
 * change whose target comes from a command's output, a file, a `read` loop, a directory svc cannot know
 * (`cd "$(dirname "$0")"`, `env -C`, `CDPATH`, `~-`) is the `unknown_target` signal; a network client
 * aimed at a loopback host on a port svc cannot compute (`curl localhost:$(cat port)`) is `unknown_port`.
 * Both are denied by the `analysis` pack, with a reason that says what could not be known.
 */
import type { Invocation } from './invocation.ts'
import type { AnalysisState } from './state.ts'
import { safeComputedTarget } from './computed-targets.ts'
import { findReachesGit } from './find-git.ts'
import { lexicalPath } from './paths.ts'

const RECURSIVE_DELETERS: ReadonlySet<string> = new Set(['rm', 'grm', 'srm'])
const DELETERS: ReadonlySet<string> = new Set(['rimraf', 'del', 'del-cli', 'trash', 'trash-put', 'shred', 'wipe'])
const RECURSIVE_MODE: ReadonlySet<string> = new Set(['chmod', 'chown', 'chgrp'])
const NETWORK_CLIENTS: ReadonlySet<string> = new Set([
  'curl',
  'wget',
  'http',
  'https',
  'xh',
  'xhs',
  'httpie',
  'curlie',
  'aria2c',
  'websocat',
  'grpcurl',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'socat',
])
const LOOPBACK = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^@/\s]*@)?(?:localhost|127(?:\.\d+){0,3}|\[::1?\]|::1|0\.0\.0\.0|0|\[::ffff:127\.0\.0\.1\])(?=$|[:/])(:\d*)?/i

/** Adds `unknown_target` / `unknown_port` for one invocation about to be recorded. */
export function flagUnknowns(st: AnalysisState, inv: Invocation, program: string): void {
  if (destroys(program, inv.argv) && targets(inv).some((i) => unknownOperand(inv, i))) st.signals.add('unknown_target')
  if (NETWORK_CLIENTS.has(program) && aimsAtUnknownLoopbackPort(inv)) st.signals.add('unknown_port')
  if (treeDestination(program, inv.argv).some((i) => unknownOperand(inv, i))) st.signals.add('unknown_target')
  if (destroys(program, inv.argv) && targets(inv).some((i) => ownRepository(st, inv, inv.argv[i]!))) st.signals.add('own_repository')
  if (program === 'find' && findDeletesOwnGit(st, inv)) st.signals.add('own_repository')
  // `cp -a /tmp/x/. .`, `rsync -a x/ ./`: a tree lands on the project root, where its hook and policy files live.
  if ((program === 'cp' || program === 'rsync') && treeDestination(program, inv.argv).some((i) => projectRoot(st, inv, inv.argv[i]!))) st.signals.add('tree_into_project')
}

/** The working directory itself (not a subdirectory of it), where `.claude/`, `.gemini/` and `.svc.yaml` sit. */
function projectRoot(st: AnalysisState, inv: Invocation, arg: string): boolean {
  const cwd = inv.scope.cwd
  return cwd !== undefined && lexicalPath(arg, { home: st.options.home, cwd }) === cwd
}

/**
 * `rm -rf .git`, `rm -rf ../.git/*`: the `.git` of the repository the command runs in (the working directory's or
 * an ancestor's) holds every commit and stash not yet pushed. A `.git` inside a subdirectory (a vendored clone) is not it.
 */
function ownRepository(st: AnalysisState, inv: Invocation, arg: string): boolean {
  const cwd = inv.scope.cwd
  if (cwd === undefined) return false
  const path = lexicalPath(arg.replace(/\/\*$/, ''), { home: st.options.home, cwd })
  if (path === undefined || !/\/\.git$/.test(path)) return false
  const repo = path.slice(0, -'/.git'.length) || '/'
  return cwd === repo || cwd.startsWith(repo === '/' ? '/' : `${repo}/`)
}

/** Programs that delete what find hands them, so a find over `.git`'s files deletes history even without `-r`. */
const FIND_DELETERS: ReadonlySet<string> = new Set([...RECURSIVE_DELETERS, ...DELETERS, 'unlink', 'rmdir'])

/** `find . -name .git -exec rm -rf {} +`, `find . -type f -delete`: a find whose deleting action reaches the own `.git`. */
function findDeletesOwnGit(st: AnalysisState, inv: Invocation): boolean {
  const { argv } = inv
  const firstExpr = argv.findIndex((a, i) => i > 0 && (a.startsWith('-') || a === '(' || a === '!'))
  const roots = argv.slice(1, firstExpr === -1 ? argv.length : firstExpr)
  const dynamic = (i: number) => inv.info[i]?.dynamic === true
  return argv.some((a, i) => {
    const deletes = a === '-delete' || (/^-(exec|execdir|ok|okdir)$/.test(a) && FIND_DELETERS.has(programOf(argv.slice(i + 1))))
    // A root inside `.git` (`find .git/objects -type f -delete`) is the repository's history itself.
    const gitOf = (root: string) => root.replace(/^(.*\.git)\/.*$/, '$1')
    return (
      deletes &&
      (roots.length > 0 ? roots : ['.']).some((root) => ownRepository(st, inv, gitOf(root)) || (findReachesGit(argv, i, root, dynamic) && ownRepository(st, inv, `${root}/.git`)))
    )
  })
}

/**
 * argv indexes of where a tree lands: `tar -C DIR`, `unzip -d DIR`, `7z -oDIR`, the last operand of a recursive
 * `cp`/`rsync`, `git -C DIR` (a repository svc cannot locate). A tree extracted into a directory svc cannot
 * compute may land in the home directory or a harness config directory.
 */
function treeDestination(program: string, argv: readonly string[]): number[] {
  const flagValues = (flags: readonly string[]): number[] => argv.flatMap((_a, i) => (flags.includes(argv[i - 1] ?? '') ? [i] : []))
  if (program === 'tar' || program === 'gtar' || program === 'bsdtar') return flagValues(['-C', '--directory'])
  if (program === 'unzip') return flagValues(['-d'])
  if (program === '7z' || program === '7za') return argv.flatMap((a, i) => (/^-o/.test(a) ? [i] : []))
  if ((program === 'cp' || program === 'rsync') && argv.some((a) => /^-[a-zA-Z]*[rRa]/.test(a) || a === '--recursive' || a === '--archive')) {
    const operands = argv.flatMap((a, i) => (i > 0 && !a.startsWith('-') ? [i] : []))
    return operands.length >= 2 ? [operands[operands.length - 1]!] : []
  }
  return []
}

function destroys(program: string, argv: readonly string[]): boolean {
  const flags = argv.slice(1).filter((a) => a.startsWith('-'))
  if (RECURSIVE_DELETERS.has(program)) return flags.some((f) => /^-[a-zA-Z]*[rR]/.test(f) || f === '--recursive')
  if (DELETERS.has(program)) return true
  if (RECURSIVE_MODE.has(program)) return flags.some((f) => /^-[a-zA-Z]*R/.test(f) || f === '--recursive')
  if (program === 'find') return argv.includes('-delete')
  if (program === 'rsync') return flags.some((f) => f.startsWith('--delete') || f === '--remove-source-files')
  if (program === 'dd') return argv.some((a) => a.startsWith('of='))
  return false
}

/** argv indexes of a destructive command's targets (operands; `of=` for dd; find's roots). */
function targets(inv: Invocation): number[] {
  const { argv } = inv
  if (programOf(argv) === 'dd') return argv.flatMap((a, i) => (a.startsWith('of=') ? [i] : []))
  const out: number[] = []
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!
    if (programOf(argv) === 'find' && (a.startsWith('-') || a === '(' || a === '!')) break
    if (!a.startsWith('-') || inv.info[i]?.dynamic) out.push(i)
  }
  return out
}

function programOf(argv: readonly string[]): string {
  const a = argv[0] ?? ''
  return a.slice(a.lastIndexOf('/') + 1)
}

/** Names that are protected wherever an unknown prefix puts them (`$X/.ssh` may be `~/.ssh`). */
const SENSITIVE: ReadonlySet<string> = new Set([
  '.ssh',
  '.gnupg',
  '.config',
  '.local',
  '.claude',
  '.codex',
  '.gemini',
  '.cursor',
  '.svc',
  '.aws',
  '.kube',
  'Documents',
  'Desktop',
  'Library',
  'etc',
  'usr',
  'bin',
  'var',
  'home',
  'Users',
  'root',
  'boot',
  'lib',
  'opt',
  'srv',
  'System',
  'Applications',
  'private',
  '.git',
])

/**
 * An unknown prefix followed by a literal, ordinary subpath (`"$TMPDIR"/build-cache`, `${OUT:?}/dist`)
 * names a directory of that name somewhere: it cannot be the root, the home directory or a protected one.
 */
function namedUnderUnknown(known: string): boolean {
  if (!known.startsWith('/') || /[*?[\]{}~$`]/.test(known)) return false
  const parts = known.split('/').filter((p) => p !== '')
  return parts.length > 0 && !parts.some((p) => p === '.' || p === '..') && !SENSITIVE.has(parts[parts.length - 1]!)
}

function unknownOperand(inv: Invocation, i: number): boolean {
  const arg = inv.argv[i]!.replace(/^of=|^-o/, '')
  if (inv.info[i]?.dynamic) return !namedUnderUnknown(arg) && !(inside(inv) && safeComputedTarget(arg, SENSITIVE))
  if (/^~[-+](\/|$)/.test(arg)) return true
  // Relative to a working directory svc could not follow (`cd "$(dirname "$0")"`, `env -C "$d"`).
  return inv.scope.cwd === undefined && !arg.startsWith('/')
}

/** The command runs in a directory svc knows (a `find .` there prints paths under it). */
function inside(inv: Invocation): boolean {
  return inv.scope.cwd !== undefined
}

function aimsAtUnknownLoopbackPort(inv: Invocation): boolean {
  const { argv, info } = inv
  for (let i = 1; i < argv.length; i++) {
    if (!info[i]?.dynamic) continue
    const m = LOOPBACK.exec(argv[i]!)
    // `http://127.0.0.1:` with the port left out of the known text, or a bare host whose port argument is unknown.
    if (m && (m[1] === ':' || argv[i] === m[0])) return true
  }
  const operands = argv
    .slice(1)
    .map((a, i) => [a, i + 1] as const)
    .filter(([a]) => !a.startsWith('-'))
  const host = operands.findIndex(([a]) => LOOPBACK.exec(a)?.[0] === a)
  const port = host === -1 ? undefined : operands[host + 1]
  return port !== undefined && info[port[1]]?.dynamic === true
}
