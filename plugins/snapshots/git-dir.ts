/**
 * What a snapshot keeps of a project's `.git` besides its objects, read without a git process (the check path):
 * HEAD, every ref (loose and packed), and the small files that decide what git runs and where it pushes — config,
 * hooks, info/ (exclude, attributes), description. A `.git` that is a file (a linked worktree, a submodule) or
 * absent yields none of it: only the work tree is kept then.
 */
import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface GitDirFile {
  readonly mode: number
  /** base64 of the bytes. */
  readonly data: string
}

export interface GitDirState {
  /** HEAD's text: `ref: refs/heads/main` or a commit id. */
  readonly head: string
  /** Every ref under refs/: its target id, or `ref: <name>` for a symbolic one. */
  readonly refs: Readonly<Record<string, string>>
  /** config, description, hooks/*, info/* by path relative to `.git`. */
  readonly files: Readonly<Record<string, GitDirFile>>
  /** Digest of head and refs: equal digests need no new fetch of objects. */
  readonly refsKey: string
}

/** The metadata files kept; a bigger file is left out (hooks and configs are small). */
const KEPT = ['config', 'description', 'hooks', 'info']
const MAX_FILE = 256 * 1024

function text(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}

function looseRefs(dir: string, prefix: string, out: Record<string, string>): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const path = join(dir, name)
    const st = lstatSync(path)
    if (st.isDirectory()) looseRefs(path, `${prefix}/${name}`, out)
    else if (st.isFile() && !name.endsWith('.lock')) {
      const value = text(path)
      if (value) out[`${prefix}/${name}`] = value
    }
  }
}

function keptFiles(gitDir: string): Record<string, GitDirFile> {
  const out: Record<string, GitDirFile> = {}
  const walk = (rel: string) => {
    const path = join(gitDir, rel)
    let st
    try {
      st = lstatSync(path)
    } catch {
      return
    }
    if (st.isDirectory()) for (const name of readdirSync(path).sort()) walk(join(rel, name))
    else if (st.isFile() && st.size <= MAX_FILE) out[rel] = { mode: st.mode & 0o777, data: readFileSync(path).toString('base64') }
  }
  for (const name of KEPT) walk(name)
  return out
}

/** The state of `<workspace>/.git`, or undefined when it is not a directory. */
export function readGitDir(workspace: string): GitDirState | undefined {
  const gitDir = join(workspace, '.git')
  try {
    if (!lstatSync(gitDir).isDirectory()) return undefined
  } catch {
    return undefined
  }
  const refs: Record<string, string> = {}
  for (const line of (text(join(gitDir, 'packed-refs')) ?? '').split('\n')) {
    const m = /^([0-9a-f]{40,64}) (refs\/\S+)$/.exec(line)
    if (m) refs[m[2]!] = m[1]!
  }
  looseRefs(join(gitDir, 'refs'), 'refs', refs)
  const head = text(join(gitDir, 'HEAD')) ?? ''
  const sorted = Object.fromEntries(Object.entries(refs).sort(([a], [b]) => (a < b ? -1 : 1)))
  const refsKey = createHash('sha256')
    .update(JSON.stringify([head, sorted]))
    .digest('hex')
    .slice(0, 20)
  return { head, refs: sorted, files: keptFiles(gitDir), refsKey }
}
