/**
 * Commands that write a whole tree without naming its files: `cp -rT dir ~/.gemini`, `cp -r payload/. ~/`,
 * `rsync -a payload/ ~/`, `unzip -o x.zip -d ~`, `tar -xf - -C ~/.gemini`, `git apply --directory=../.claude`.
 * The directory the tree's contents land in is recorded as written, so a gate on protected directories
 * (home, harness config directories, svc's home) sees it whatever files the tree holds.
 */
import { posix } from 'node:path'
import { lexicalPath, type DiskContext } from './paths.ts'

/** Raw directories whose contents `argv` replaces or fills with a tree. */
export function treeWriteRoots(program: string, argv: readonly string[], ctx: DiskContext): string[] {
  const args = argv.slice(1)
  const operands = args.filter((a, i) => !a.startsWith('-') && !VALUE_BEFORE.test(args[i - 1] ?? ''))
  const recursive = args.some((a) => /^-[a-zA-Z]*[rRa]/.test(a) || a === '--recursive' || a === '--archive')
  if ((program === 'cp' || program === 'gcp' || program === 'ditto') && (recursive || program === 'ditto') && operands.length >= 2) {
    const target = args.find((_a, i) => args[i - 1] === '-t' || args[i - 1] === '--target-directory') ?? operands[operands.length - 1]!
    const sources = operands.filter((o) => o !== target)
    if (program === 'ditto' || args.some((a) => a === '-T' || a === '--no-target-directory' || /^-[a-zA-Z]*T/.test(a))) return [target]
    const lexical = lexicalPath(target, ctx)
    const exists = lexical !== undefined && ctx.disk.isDirectory(lexical)
    return sources.map((s) =>
      /\/\.?$/.test(s) && /\/\.$/.test(s) ? target : exists || target.endsWith('/') ? `${target.replace(/\/+$/, '')}/${posix.basename(s.replace(/\/+\.?$/, ''))}` : target,
    )
  }
  if (program === 'rsync' && recursive && operands.length >= 2) {
    const target = operands[operands.length - 1]!
    return operands.slice(0, -1).map((s) => (s.endsWith('/') ? target : `${target.replace(/\/+$/, '')}/${posix.basename(s)}`))
  }
  if (program === 'unzip' || (program === 'bsdtar' && args.some((a) => /^-?x/.test(a)))) {
    const at = args.indexOf('-d')
    return [at !== -1 && args[at + 1] !== undefined ? args[at + 1]! : '.']
  }
  if ((program === 'tar' || program === 'gtar' || program === 'bsdtar') && args.some((a) => /^-?[a-zA-Z]*x/.test(a) || a === '--extract' || a === '--get')) {
    const at = args.findIndex((a) => a === '-C' || a === '--directory')
    const inline = args.find((a) => a.startsWith('--directory='))
    return [at !== -1 && args[at + 1] !== undefined ? args[at + 1]! : inline !== undefined ? inline.slice(12) : '.']
  }
  if (program === '7z' || program === '7za') {
    const out = args.find((a) => a.startsWith('-o'))
    if (args[0] === 'x' || args[0] === 'e') return [out !== undefined ? out.slice(2) : '.']
  }
  if (program === 'git' && args.includes('clone')) {
    // `git clone URL [DIR]`: the whole repository lands in DIR (default: the URL's last segment without `.git`).
    const rest = args.slice(args.indexOf('clone') + 1)
    const operands = rest.filter((a, i) => !a.startsWith('-') && !CLONE_VALUE.test(rest[i - 1] ?? ''))
    if (operands.length >= 2) return [operands[1]!]
    if (operands.length === 1) {
      const name = posix.basename(operands[0]!.replace(/\/+$/, '').replace(/\.git$/, '')).replace(/^.*:/, '')
      if (name !== '' && name !== '.' && name !== '..') return [name]
    }
    return []
  }
  if (program === 'git' && (args.includes('apply') || args.includes('am'))) {
    const dir = args.find((a) => a.startsWith('--directory='))
    if (dir !== undefined) return [dir.slice(12)]
  }
  return []
}

const CLONE_VALUE =
  /^(-b|--branch|-o|--origin|-c|--config|--depth|--reference|--reference-if-able|--separate-git-dir|--template|-u|--upload-pack|-j|--jobs|--filter|--shallow-since|--shallow-exclude|--server-option|--bundle-uri)$/

const VALUE_BEFORE = /^(-t|--target-directory|-C|--directory|-d|-e|--rsh|--exclude|-f|--file|-S|--suffix)$/
