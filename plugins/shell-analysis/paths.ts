/**
 * Path spellings of shell operands: the core's lexical and symlink-resolved forms (`~`, `$HOME`, `..`, `//`,
 * links), plus what a wildcard operand expands to on disk.
 */
import { posix } from 'node:path'
import { lexicalPath as coreLexicalPath } from '../../core/index.ts'
import type { DiskReads } from './disk.ts'

/** Where relative paths and `~` resolve. */
export interface PathContext {
  readonly home: string
  readonly cwd?: string
}

/** A path context that may look at the disk (through the analysis's recorded reads). */
export interface DiskContext extends PathContext {
  readonly disk: DiskReads
}

const MAX_PATH = 4096

/** Lexically canonical absolute form (no symlink resolution); undefined when `raw` is no usable path. */
export function lexicalPath(raw: string, ctx: PathContext): string | undefined {
  if (raw === '' || raw.length > MAX_PATH || raw.includes('\0') || raw.includes('\n')) return undefined
  return coreLexicalPath(raw, ctx.cwd, ctx.home)
}

const MAX_OPERAND_PATHS = 256

/**
 * The lexical form and, when a symlink on the way exists, the resolved one. A pattern (`~/.ssh/i*`) also
 * yields the existing files it expands to, as bash's pathname expansion would.
 */
export function canonicalPaths(raw: string, ctx: DiskContext, expand = true): string[] {
  const lexical = lexicalPath(raw, ctx)
  if (lexical === undefined) return []
  const out = new Set(ctx.disk.spellings(lexical))
  if (expand && /[*?[]/.test(lexical)) for (const match of expandPattern(lexical, ctx.disk)) out.add(match).add(ctx.disk.spellings(match).at(-1)!)
  return [...out]
}

/** Pathname expansion, bounded: `**` is plain `*` (no globstar) and at most two wildcard segments. */
function expandPattern(pattern: string, disk: DiskReads): string[] {
  const flat = pattern.replace(/\*{2,}/g, '*')
  if (flat.split('/').filter((seg) => /[*?[]/.test(seg)).length > 2) return []
  return disk.glob(flat)
}

/**
 * Bash expands a wildcard in the program word too (`/bin/r?`, `/usr/bin/[r]m`): the sorted matches become
 * the program and its first arguments. Undefined when `word` has no wildcard or matches nothing (bash then
 * runs the word as written).
 */
export function expandProgramWord(word: string, ctx: DiskContext): string[] | undefined {
  if (!/[*?[]/.test(word) || word.length > MAX_PATH || word.includes('\0')) return undefined
  const lexical = lexicalPath(word, ctx)
  if (lexical === undefined) return undefined
  const matches = expandPattern(lexical, ctx.disk).sort()
  if (matches.length === 0) return undefined
  // Relative words stay relative in bash's expansion; the analysis only needs the name, so absolute is fine.
  return matches
}

/** Programs that put their source operands into a destination directory (`cp a b DIR/`, `mv -t DIR a`). */
const INTO_DIRECTORY: ReadonlySet<string> = new Set(['cp', 'gcp', 'mv', 'gmv', 'install', 'ginstall', 'ln', 'gln', 'rsync', 'scp', 'ditto'])

/**
 * The files a copy or move creates inside a destination directory: `cp settings.json ~/.claude` writes
 * `~/.claude/settings.json`. The destination is `-t DIR`/`--target-directory=DIR`, or the last operand
 * when it ends with `/` or is an existing directory.
 */
export function intoDirectory(program: string, argv: readonly string[], operands: readonly string[], ctx: DiskContext): string[] {
  if (!INTO_DIRECTORY.has(program) || operands.length < 2) return []
  const flagged = argv.findIndex((a) => a === '-t' || a === '--target-directory')
  const inline = argv.find((a) => a.startsWith('--target-directory='))
  let dir = flagged > 0 ? argv[flagged + 1] : inline?.slice('--target-directory='.length)
  let sources = operands.filter((o) => o !== dir)
  if (dir === undefined) {
    const last = operands[operands.length - 1]!
    const lexical = lexicalPath(last, ctx)
    if (!last.endsWith('/') && !(lexical !== undefined && ctx.disk.isDirectory(lexical))) return []
    dir = last
    sources = operands.slice(0, -1)
  }
  return sources.slice(0, MAX_OPERAND_PATHS).flatMap((src) => {
    const name = posix.basename(src.replace(/\/+$/, ''))
    return name === '' || name === '.' || name === '..' ? [] : [`${dir!.replace(/\/+$/, '')}/${name}`]
  })
}
