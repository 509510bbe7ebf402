/**
 * Commands that read a whole tree without naming its files: `grep -r x ~`, `tar czf h.tgz ~`, `cp -r ~ /tmp/h`,
 * `find ~ -exec cat {} +`. A tree read of the home directory (or anything above it) reads every secret in it
 * (keys, cloud credentials, svc's own home), which no path gate sees because no such file is named; serving it over
 * HTTP (`python3 -m http.server -d ~`, `php -S … -t ~`, `npx serve ~`) or making it git's work tree does too: the
 * analysis reports it as the `home_tree_read` signal. Programs that only list names (`ls -R`, `du`, `find`
 * without `-exec`) and searches that skip dot-directories by default (`rg`, `ag` without `--hidden`) are not reads.
 */
import { lexicalPath } from './paths.ts'

/** Programs `find -exec` may run on what it finds without reading their content. */
const NAME_ONLY: ReadonlySet<string> = new Set([
  'ls',
  'stat',
  'du',
  'file',
  'echo',
  'printf',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'test',
  '[',
  'touch',
  'chmod',
  'chown',
  'rm',
  'rmdir',
  'mkdir',
  'true',
])

const recursiveFlag = (args: readonly string[], letters: string, long: readonly string[]): boolean =>
  args.some((a) => (/^-[a-zA-Z]+$/.test(a) && [...letters].some((l) => a.includes(l))) || long.includes(a.split('=')[0]!))

function operandsOf(args: readonly string[], valued: RegExp): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '--') return [...out, ...args.slice(i + 1)]
    if (valued.test(a)) i++
    else if (!a.startsWith('-') || a === '-') out.push(a)
  }
  return out
}

/** Raw directories (or files) that `argv` reads recursively, every file beneath them included. */
export function treeReadRoots(program: string, argv: readonly string[]): string[] {
  const args = argv.slice(1)
  switch (program) {
    case 'grep':
    case 'egrep':
    case 'fgrep': {
      if (!recursiveFlag(args, 'rR', ['--recursive', '--dereference-recursive']) && !args.includes('--directories=recurse')) return []
      const operands = operandsOf(args, /^(-e|-f|--regexp|--file|-m|--max-count|-A|-B|-C|--include|--exclude|--exclude-dir|-d|--directories)$/)
      // The first operand is the pattern unless -e/-f gave it.
      const patternGiven = args.some((a) => /^(-e|-f|--regexp|--file)(=|$)/.test(a) || /^-[a-zA-Z]*[ef]/.test(a))
      return patternGiven ? operands : operands.slice(1)
    }
    case 'rgrep':
      return operandsOf(args, /^(-e|-f)$/).slice(1)
    case 'rg':
    case 'ag': {
      const hidden = args.some((a) => a === '--hidden' || a === '-.' || /^-u{2,}$/.test(a) || a === '--unrestricted' || /^-[a-zA-Z]*u[a-zA-Z]*u/.test(a))
      if (!hidden) return []
      const patternGiven = args.some((a) => /^(-e|-f|--regexp|--file)(=|$)/.test(a))
      const operands = operandsOf(args, /^(-e|-f|--regexp|--file|-g|--glob|-t|--type|-T|--type-not|-m|--max-count|-A|-B|-C|-j|--threads)$/)
      return patternGiven ? operands : operands.slice(1)
    }
    case 'tar':
    case 'gtar':
    case 'bsdtar': {
      const create =
        args.some((a) => /^-?[a-zA-Z]*c/.test(a) && !a.startsWith('--')) || args.includes('--create') || args.some((a) => /^-?[a-zA-Z]*r/.test(a) && !a.startsWith('--'))
      if (!create) return []
      // `tar czf OUT.tgz DIR...`: the archive name follows the `f` in the first (bundled) argument.
      const bundled = args[0] !== undefined && !args[0].startsWith('--') && /f/.test(args[0])
      const rest = bundled ? args.slice(2) : args
      return operandsOf(rest, /^(-f|--file|-C|--directory|-T|--files-from|-X|--exclude-from|--exclude)$/)
    }
    case 'zip':
      return recursiveFlag(args, 'r', ['--recurse-paths']) ? operandsOf(args, /^(-x|-i|-b|-n|-t|-tt)$/).slice(1) : []
    case '7z':
    case '7za':
      return args[0] === 'a' ? operandsOf(args.slice(1), /^$/).slice(1) : []
    case 'cp':
    case 'gcp':
    case 'scp':
    case 'rsync': {
      if (!recursiveFlag(args, program === 'rsync' ? 'ra' : 'rRa', ['--recursive', '--archive'])) return []
      const operands = operandsOf(args, /^(-t|--target-directory|-e|--rsh|-i|-P|-o|-F|-S|--exclude|--include|--filter)$/)
      return operands.slice(0, -1)
    }
    case 'find': {
      const starts: string[] = []
      for (const a of args) {
        if (a.startsWith('-') || a === '(' || a === '!') break
        starts.push(a)
      }
      const exec = args.findIndex((a, i) => /^-(exec|execdir|ok|okdir)$/.test(a) && args[i + 1] !== undefined && !NAME_ONLY.has(args[i + 1]!.split('/').pop()!))
      return exec === -1 ? [] : starts.length > 0 ? starts : ['.']
    }
    case 'git': {
      // `git --work-tree ~ add .`: the work tree is what git reads (stages, diffs, archives).
      const i = args.findIndex((a) => a === '--work-tree' || a.startsWith('--work-tree='))
      return i === -1 ? [] : [args[i]!.includes('=') ? args[i]!.slice('--work-tree='.length) : (args[i + 1] ?? '')]
    }
    case 'serve':
    case 'http-server':
    case 'live-server':
    case 'static-server': {
      // A static file server hands every file under its root to whoever asks.
      const operands = operandsOf(args, /^(-p|--port|-l|--listen|-a|--address|-c|--config)$/)
      return [operands[0] ?? '.']
    }
    default: {
      // `python3 -m http.server [-d DIR]` and `php -S HOST:PORT [-t DIR]` serve a directory over HTTP.
      const m = args.indexOf('-m')
      if (/^python[\d.]*$/.test(program) && m !== -1 && args[m + 1] === 'http.server') {
        const d = args.findIndex((a) => a === '-d' || a === '--directory' || a.startsWith('--directory='))
        return [d === -1 ? '.' : args[d]!.includes('=') ? args[d]!.slice(12) : (args[d + 1] ?? '.')]
      }
      if (/^php[\d.]*$/.test(program) && args.includes('-S')) return [args[args.indexOf('-t') + 1] ?? '.'].map((r) => (args.includes('-t') ? r : '.'))
      return []
    }
  }
}

/** True when one of the raw roots is the home directory or above it (`/`, `/home`). */
export function readsHomeTree(roots: readonly string[], ctx: { home: string; cwd?: string }): boolean {
  const home = ctx.home.replace(/\/+$/, '')
  return roots.some((raw) => {
    const path = lexicalPath(raw, ctx)?.replace(/\/+$/, '') ?? undefined
    if (path === undefined) return false
    return path === '' || path === home || home.startsWith(`${path}/`)
  })
}
