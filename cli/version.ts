/**
 * What `svc --version` prints: the package version and the commit it was built from. An installed copy
 * reads the commit that `npm pack` recorded (cli/build-info.json, written by scripts/build-info.ts); a
 * checkout reads it from its .git files (no git binary needed). Anything else says "unknown" rather than guess.
 */
import { readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PROJECT_ROOT, VERSION } from './paths.ts'

export const BUILD_INFO_FILE = join(PROJECT_ROOT, 'cli', 'build-info.json')

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}

/** The commit HEAD of the git checkout at `root` points to, read from the files git keeps (worktrees too). */
export function gitCommit(root: string): string | undefined {
  const dotGit = join(root, '.git')
  let gitDir: string
  try {
    gitDir = statSync(dotGit).isDirectory() ? dotGit : resolve(root, read(dotGit)?.replace(/^gitdir:\s*/, '') ?? '')
  } catch {
    return undefined
  }
  const commonDir = resolve(gitDir, read(join(gitDir, 'commondir')) ?? '.')
  let head = read(join(gitDir, 'HEAD'))
  for (let hops = 0; head?.startsWith('ref: ') && hops < 5; hops++) {
    const ref = head.slice(5).trim()
    head = read(join(gitDir, ref)) ?? read(join(commonDir, ref)) ?? packedRef(commonDir, ref)
  }
  return head && /^[0-9a-f]{40}$/.test(head) ? head : undefined
}

function packedRef(commonDir: string, ref: string): string | undefined {
  for (const line of read(join(commonDir, 'packed-refs'))?.split('\n') ?? []) {
    const [sha, name] = line.split(' ')
    if (name === ref) return sha
  }
  return undefined
}

/** The recorded or checked-out commit, or undefined when neither exists. */
export function buildCommit(): string | undefined {
  const recorded = read(BUILD_INFO_FILE)
  if (recorded) {
    try {
      const commit = (JSON.parse(recorded) as { commit?: unknown }).commit
      if (typeof commit === 'string' && /^[0-9a-f]{40}$/.test(commit)) return commit
    } catch {
      // a damaged file says nothing; fall through to the checkout
    }
  }
  return gitCommit(PROJECT_ROOT)
}

/** `svc 0.1.0 (commit 0123456789ab)`, or `(commit unknown)`. */
export function versionLine(): string {
  return `svc ${VERSION} (commit ${buildCommit()?.slice(0, 12) ?? 'unknown'})`
}
