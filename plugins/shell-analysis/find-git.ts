/**
 * Whether a `find` action (`-delete`, `-exec CMD {}`) can reach a start directory's `.git` or what is inside it:
 * `find . -name .git -exec rm -rf {} +`, `find . -mindepth 1 -delete`. The action's own `-o` branch is judged
 * against a few stand-ins for `.git` and its contents; a branch that `-prune`s `.git` keeps find out of it, and
 * `-not -name .git` keeps the action off it (`find . -name .git -prune -o -name '*.pyc' -exec rm {} +` is ordinary).
 * A test svc cannot judge (a computed pattern, an unsupported regex) may match.
 */
import { compileGlob, compileSafeRegex } from '../../core/index.ts'

interface Candidate {
  readonly path: string
  readonly name: string
  readonly type: 'd' | 'f'
  /** How deep below the start directory it is. */
  readonly depth: number
}

/** The `.git` directory and things in it whose loss is history lost. */
function candidates(root: string): Candidate[] {
  const git = `${root.replace(/\/+$/, '') || '/'}/.git`.replace(/^\/\//, '/')
  return [
    { path: git, name: '.git', type: 'd', depth: 1 },
    { path: `${git}/objects`, name: 'objects', type: 'd', depth: 2 },
    { path: `${git}/refs`, name: 'refs', type: 'd', depth: 2 },
    { path: `${git}/HEAD`, name: 'HEAD', type: 'f', depth: 2 },
    { path: `${git}/config`, name: 'config', type: 'f', depth: 2 },
  ]
}

const NAME_TESTS: Readonly<Record<string, { of: 'name' | 'path'; fold: boolean }>> = {
  '-name': { of: 'name', fold: false },
  '-iname': { of: 'name', fold: true },
  '-path': { of: 'path', fold: false },
  '-ipath': { of: 'path', fold: true },
  '-wholename': { of: 'path', fold: false },
  '-iwholename': { of: 'path', fold: true },
}

type Test = (c: Candidate) => boolean

/** One test of a find expression at `i`, with how many words it takes; undefined for anything that is not a test. */
function testAt(argv: readonly string[], i: number, dynamic: (i: number) => boolean): { test: Test; words: number } | undefined {
  const op = argv[i]!
  // `.git` and its directories are never empty in a repository with history (`find . -type d -empty -delete`).
  if (op === '-empty') return { test: () => false, words: 1 }
  const value = argv[i + 1]
  if (value === undefined) return undefined
  const maybe: Test = () => true
  const kind = NAME_TESTS[op]
  if (kind) {
    if (dynamic(i + 1)) return { test: maybe, words: 2 }
    const glob = compileGlob(value, { pathMode: false, caseInsensitive: kind.fold })
    return { test: (c) => glob.test(kind.of === 'name' ? c.name : c.path), words: 2 }
  }
  if (op === '-regex' || op === '-iregex') {
    if (dynamic(i + 1)) return { test: maybe, words: 2 }
    try {
      const regex = compileSafeRegex(`^(?:${value})$`)
      return { test: (c) => regex.test(c.path), words: 2 }
    } catch {
      return { test: maybe, words: 2 }
    }
  }
  if (op === '-type' && /^[a-zA-Z](,[a-zA-Z])*$/.test(value)) return { test: (c) => value.split(',').includes(c.type), words: 2 }
  return undefined
}

/** The top-level `-o` branches of a find expression, as index ranges (parentheses kept whole). */
function branches(argv: readonly string[], from: number): [number, number][] {
  const out: [number, number][] = []
  let depth = 0
  let start = from
  for (let i = from; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '(') depth++
    else if (a === ')') depth--
    else if (depth === 0 && (a === '-o' || a === '-or')) {
      out.push([start, i])
      start = i + 1
    }
  }
  out.push([start, argv.length])
  return out
}

/** Whether every test of the branch [from, to) can hold for `c` (a nested `-o` makes any one test enough). */
function branchMatches(argv: readonly string[], [from, to]: [number, number], c: Candidate, dynamic: (i: number) => boolean): boolean {
  const nestedOr = argv.slice(from, to).some((a) => a === '-o' || a === '-or')
  const results: boolean[] = []
  for (let i = from; i < to; i++) {
    const negated = argv[i - 1] === '!' || argv[i - 1] === '-not'
    const found = testAt(argv, i, dynamic)
    if (!found) continue
    const holds = found.test(c)
    // Under a nested `-o` a negated test cannot be relied on to exclude: count it as "may hold".
    results.push(negated ? (nestedOr ? true : !holds) : holds)
    i += found.words - 1
  }
  return nestedOr ? results.length === 0 || results.some(Boolean) : results.every(Boolean)
}

/** Whether the action at argv index `action` of a `find` can act on `root`'s `.git` or its contents. */
export function findReachesGit(argv: readonly string[], action: number, root: string, dynamic: (i: number) => boolean): boolean {
  const firstExpr = argv.findIndex((a, i) => i > 0 && (a.startsWith('-') || a === '(' || a === '!'))
  if (firstExpr === -1) return true
  const all = branches(argv, firstExpr)
  const own = all.find(([from, to]) => action >= from && action < to)
  if (!own) return true
  const pruned = all.some((b) => b !== own && argv.slice(b[0], b[1]).includes('-prune') && branchMatches(argv, b, candidates(root)[0]!, dynamic))
  if (pruned) return false
  // `-maxdepth 1` stops at `.git` itself (`find . -maxdepth 1 ! -name .git -exec rm -rf {} +` spares it).
  const at = argv.indexOf('-maxdepth')
  const maxDepth = at === -1 || dynamic(at + 1) ? Number.POSITIVE_INFINITY : Number(argv[at + 1] ?? Number.NaN)
  return candidates(root).some((c) => !(c.depth > maxDepth) && branchMatches(argv, own, c, dynamic))
}
