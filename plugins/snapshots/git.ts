/**
 * git as the snapshot store runs it: never with the user's global or system config, with hooks and fsmonitor off,
 * so nothing the agent planted in a workspace (a `.gitattributes` filter, a `core.fsmonitor`, a hook) runs when svc
 * reads or restores it. Plus what is done without a process: writing a loose object (a snapshot's manifest, its keep tree).
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'

/** A failed git command, with its argv and stderr, so a refusal can name what went wrong. */
class GitError extends Error {
  readonly args: readonly string[]
  readonly stderr: string
  constructor(args: readonly string[], stderr: string) {
    super(`git ${args.join(' ')} failed: ${stderr.trim().split('\n').slice(-2).join(' ') || 'no output'}`)
    this.args = args
    this.stderr = stderr
  }
}

// safe.directory: the store is svc's, and a workspace is read with nothing of its config that runs code; the
// ownership check would only refuse a store seen through another uid (a restore inside a user namespace).
const SAFE = [
  '-c',
  'safe.directory=*',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.autocrlf=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
]

export interface GitOptions {
  readonly indexFile?: string
  readonly input?: string
}

/** Runs git with the safe configuration; resolves with stdout. */
export function git(args: readonly string[], opts: GitOptions = {}): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    ...(opts.indexFile ? { GIT_INDEX_FILE: opts.indexFile } : {}),
  }
  return new Promise((resolve, reject) => {
    const child = execFile('git', [...SAFE, ...args], { env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new GitError(args, `${stderr || err.message}`))
      else resolve(stdout)
    })
    if (opts.input !== undefined) child.stdin?.end(opts.input)
  })
}

/** Writes `data` as a loose blob into the bare repository `gitDir` (no process: git's object format); returns its id. */
export function writeBlob(gitDir: string, data: Buffer): string {
  return writeObject(gitDir, 'blob', data)
}

/** A tree of `entries` (name to blob or tree id; names sorted as git sorts them: none here is a prefix of another). */
export function writeTree(gitDir: string, entries: Readonly<Record<string, { readonly id: string; readonly tree: boolean }>>): string {
  const parts = Object.keys(entries)
    .sort()
    .map((name) => {
      const e = entries[name]!
      return Buffer.concat([Buffer.from(`${e.tree ? '40000' : '100644'} ${name}\0`), Buffer.from(e.id, 'hex')])
    })
  return writeObject(gitDir, 'tree', Buffer.concat(parts))
}

function writeObject(gitDir: string, type: 'blob' | 'tree', data: Buffer): string {
  const header = Buffer.from(`${type} ${data.length}\0`)
  const id = createHash('sha1').update(header).update(data).digest('hex')
  const dir = join(gitDir, 'objects', id.slice(0, 2))
  const file = join(dir, id.slice(2))
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true })
    const tmp = `${file}.tmp-${process.pid}`
    writeFileSync(tmp, deflateSync(Buffer.concat([header, data])), { mode: 0o444 })
    renameSync(tmp, file)
  }
  return id
}
