/**
 * Computed targets that cannot leave a safe place. A recursive delete of `$(mktemp -d)` removes a directory the
 * same command just created; one of `$(find . -name node_modules -prune)` removes paths that find prints under
 * its own starting points, which lie inside the working directory. Anything else a substitution prints stays
 * unknown (`analysis.unknown-target`).
 */

/** Primaries that only test or prune, joined by and: find prints each match as START/…, nothing else. */
const TESTS_ONLY =
  /^-(?:name|iname|path|ipath|wholename|iwholename|regex|iregex|type|xtype|maxdepth|mindepth|mtime|mmin|atime|amin|ctime|cmin|newer|size|empty|perm|user|group|nouser|nogroup|links|inum|samefile|prune|print|print0|and|a|true|false|depth|xdev|mount|noleaf|readable|writable|executable|daystart|regextype)$/
const NAME_TESTS = new Set(['-name', '-iname'])

/** Shell words of a substitution's text (quotes removed; nothing in it is expanded). */
function words(text: string): string[] | undefined {
  if (/[$`;&|<>\\]/.test(text)) return undefined
  return [...text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '')
}

/** A name glob as a regular expression (`*.pyc`, `node_modules`, `.*`). */
function globRegex(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  )
}

/** Inside the working directory: relative, with no `..` and no leading `~` or `-`. */
function inside(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.startsWith('~') && !path.startsWith('-') && !path.split('/').includes('..')
}

/**
 * True when `arg` is exactly one command substitution whose output stays in a safe place: `$(mktemp …)`
 * (optionally followed by a plain subpath), or `$(find START… TESTS)` with starting points inside the working
 * directory, no link following or printing actions, and a `-name` that cannot match any of `protectedNames`.
 */
export function safeComputedTarget(arg: string, protectedNames: ReadonlySet<string>): boolean {
  const m = /^\$\(([^()]*)\)((?:\/[\w.@+-]+)*)$/.exec(arg)
  if (!m || m[2]!.split('/').some((p) => p === '..' || p === '.')) return false
  const argv = words(m[1]!.trim())
  if (argv === undefined || argv.length === 0) return false
  if (argv[0] === 'mktemp') return argv.slice(1).every((a) => (a.startsWith('-') ? /^-[dqtu]+$|^--(?:directory|quiet|dry-run)$/.test(a) : /^[\w.-]*X{3,}$/.test(a)))
  if (argv[0] !== 'find' || m[2] !== '') return false
  const first = argv.findIndex((a, i) => i > 0 && (a.startsWith('-') || a === '(' || a === '!' || a === ')'))
  const starts = argv.slice(1, first === -1 ? argv.length : first)
  if (starts.length === 0 || !starts.every(inside)) return false
  const rest = first === -1 ? [] : argv.slice(first)
  const names: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!
    // Parentheses, `!`, `-not`, `-o` could make a name test let everything else through: not followed.
    if (!TESTS_ONLY.test(a)) return false
    if (NAME_TESTS.has(a)) names.push(rest[i + 1] ?? '')
    // Each test's value (if any) is the next word; the primaries without one are followed by another primary.
    if (i + 1 < rest.length && !rest[i + 1]!.startsWith('-') && !['(', ')', '!'].includes(rest[i + 1]!)) i++
  }
  // Without a name test, find prints every path under the start, `.git` and `.claude` among them.
  return names.length > 0 && names.every((n) => ![...protectedNames].some((p) => globRegex(n).test(p)))
}
