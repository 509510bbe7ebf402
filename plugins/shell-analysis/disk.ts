/**
 * Every file-system read shell analysis makes goes through a `DiskReads`: is this a directory, what text
 * does this file hold, is there a repository here, where do these symlinks lead, is anything there, what
 * does this wildcard expand to. Each answer is remembered as an observation (kind, path, fingerprint of the answer), so a
 * remembered analysis (see memo.ts) can be trusted again only while asking the same questions gives the
 * same answers. Analysis is otherwise a pure function of its options and the command text, so equal
 * answers mean an equal analysis. A read that cannot be asked again cheaply (wildcard expansion over a
 * directory) marks the analysis unrepeatable: it is never remembered.
 */
import { accessSync, closeSync, constants, existsSync, globSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs'
import { join, posix } from 'node:path'
import { pathSpellings, sha256 } from '../../core/index.ts'
import { type Caller, callerMayRead } from './caller-access.ts'

/** The largest file read as text (a curl config, a script, a patch, package.json). */
export const MAX_READ = 1024 * 1024
const MAX_GLOB_MATCHES = 256

/** What each kind of read answers on disk, and the fingerprint an answer is compared by. */
const PROBES = {
  directory: (path: string): boolean => {
    try {
      return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true
    } catch {
      return false
    }
  },
  text: (path: string): string | undefined => {
    try {
      const stat = statSync(path, { throwIfNoEntry: false })
      return stat?.isFile() && stat.size <= MAX_READ ? readFileSync(path, 'utf8') : undefined
    } catch {
      return undefined
    }
  },
  /**
   * What git's discovery finds at DIR: `repo` (a `.git` directory with a HEAD), `file` (a `.git` file: a
   * worktree's or submodule's pointer), `bare` (DIR itself holds HEAD, objects/ and refs/: git takes it as a
   * bare repository) or `none`.
   */
  gitEntry: (dir: string): 'repo' | 'file' | 'bare' | 'none' => {
    try {
      // Most directories have no `.git` and no HEAD: a stat that does not throw answers that cheaply (a thrown ENOENT is the costly part).
      const dotGit = statSync(join(dir, '.git'), { throwIfNoEntry: false })
      if (dotGit?.isDirectory() && readdirSync(join(dir, '.git')).includes('HEAD')) return 'repo'
      if (dotGit !== undefined && !dotGit.isDirectory()) return 'file'
      const isDir = (name: string) => statSync(join(dir, name), { throwIfNoEntry: false })?.isDirectory() === true
      return statSync(join(dir, 'HEAD'), { throwIfNoEntry: false })?.isFile() && isDir('objects') && isDir('refs') ? 'bare' : 'none'
    } catch {
      return 'none'
    }
  },
  /** The lexical spelling and, when a symlink lies on the way, the resolved one (last). */
  spellings: (path: string): string[] => pathSpellings(path, undefined, '/'),
  /** The path with every symlink resolved, or undefined when it does not resolve (missing, a loop). */
  realPath: (path: string): string | undefined => {
    try {
      return realpathSync(path)
    } catch {
      return undefined
    }
  },
  /** Whether anything is there (following symlinks). */
  exists: (path: string): boolean => existsSync(path),
  /** `uid:gid,gid:path`: whether that caller could read path (caller-access.ts); asked before reading any text. */
  callerMay: (spec: string): boolean => {
    const [uid, gids, ...path] = spec.split(':')
    return callerMayRead(path.join(':'), { uid: Number(uid), gids: gids!.split(',').map(Number) })
  },
  /**
   * What running `path` as a script would read, when its text is not known otherwise: `none` (nothing there, a
   * directory or a device: nothing the agent wrote runs), `unreadable` (a FIFO or socket, whose text comes from
   * whoever writes it, or a file this process may not read), `large:` and the first 4 KiB of a file over
   * MAX_READ, or `t` and the text.
   */
  script: (path: string): string => {
    try {
      const stat = statSync(path, { throwIfNoEntry: false })
      if (stat === undefined || stat.isDirectory() || stat.isCharacterDevice() || stat.isBlockDevice()) return 'none'
      if (!stat.isFile()) return 'unreadable'
      if (stat.size <= MAX_READ) return `t${readFileSync(path, 'utf8')}`
      const fd = openSync(path, 'r')
      try {
        const head = Buffer.alloc(4096)
        return `large:${head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8')}`
      } finally {
        closeSync(fd)
      }
    } catch {
      return 'unreadable'
    }
  },
} as const

type Kind = keyof typeof PROBES

const fingerprint = (value: unknown): string => (typeof value === 'string' ? `t${sha256(value)}` : Array.isArray(value) ? `a${value.join('\0')}` : String(value))

/** One observation: the kind of read, the path it was about, the answer's fingerprint. */
export interface Observation {
  readonly kind: Kind
  readonly path: string
  readonly answer: string
}

/** The reads of one analysis (and of the scripts it follows), answered from disk and remembered. */
export class DiskReads {
  readonly #seen = new Map<string, Observation>()
  readonly #refused = new Set<string>()
  readonly #callerRefused = new Set<string>()
  #unrepeatable = false

  /** `caller`: a daemon under its own account reads only what this account could (caller-access.ts). */
  readonly caller: Caller | undefined
  constructor(caller?: Caller) {
    this.caller = caller
  }

  /** Whether the caller could read `path` (always, without a caller); a refusal is noted like the daemon's own. */
  #callerMay(path: string): boolean {
    if (!this.caller || this.#read('callerMay', `${this.caller.uid}:${this.caller.gids.join(',')}:${path}`)) return true
    this.#refused.add(path)
    this.#callerRefused.add(path)
    return false
  }

  #read<K extends Kind>(kind: K, path: string): ReturnType<(typeof PROBES)[K]> {
    const answer = PROBES[kind](path) as ReturnType<(typeof PROBES)[K]>
    const key = `${kind}\0${path}`
    const seen = this.#seen.get(key)
    if (seen === undefined) this.#seen.set(key, { kind, path, answer: fingerprint(answer) })
    // A path that changed while this very analysis ran (asked twice, answered differently) has no one answer to re-check.
    else if (seen.answer !== fingerprint(answer)) this.#unrepeatable = true
    return answer
  }

  isDirectory(path: string): boolean {
    return this.#read('directory', path)
  }

  /** A regular file's text (at most MAX_READ bytes), or undefined. */
  text(path: string): string | undefined {
    if (!this.#callerMay(path)) return undefined
    const text = this.#read('text', path)
    if (text === undefined) this.#noteRefused(path)
    return text
  }

  /**
   * A file that is there but this process may not read: a daemon under its own account (`svc daemon --user`)
   * reading a project the developer did not open to it. Its text is unknown, not absent: the analysis fails closed
   * naming it (analyze.ts), never as if the file (a package.json's scripts, a git config's aliases) were not there.
   */
  #noteRefused(path: string): void {
    try {
      accessSync(path, constants.R_OK)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'EACCES' || code === 'EPERM') this.#refused.add(path)
    }
  }

  /** Files the analysis needed and was refused (see #noteRefused). */
  get refused(): readonly string[] {
    return [...this.#refused]
  }

  /** Of those, the ones the caller could not read either (so no grant to the daemon would help). */
  get callerRefused(): readonly string[] {
    return [...this.#callerRefused]
  }

  /** What git's discovery finds at `dir` (see PROBES.gitEntry). */
  gitEntry(dir: string): 'repo' | 'file' | 'bare' | 'none' {
    return this.#read('gitEntry', dir)
  }

  /** Both spellings gates should match for an absolute lexical path (see core pathSpellings). */
  spellings(path: string): string[] {
    return this.#read('spellings', path)
  }

  /** The path with its symlinks resolved (undefined when it does not resolve). */
  realPath(path: string): string | undefined {
    return this.#read('realPath', path)
  }

  exists(path: string): boolean {
    return this.#read('exists', path)
  }

  /** What running `path` as a script reads (see PROBES.script): its text, the head of a large file, or why none. */
  script(path: string): { text: string } | { head: string } | 'none' | 'unreadable' {
    if (!this.#callerMay(path)) return 'unreadable'
    const answer = this.#read('script', path)
    if (answer === 'unreadable') this.#noteRefused(path)
    if (answer === 'none' || answer === 'unreadable') return answer
    return answer.startsWith('large:') ? { head: answer.slice('large:'.length) } : { text: answer.slice(1) }
  }

  /** Pathname expansion of an absolute pattern (bounded); an analysis that used it is not remembered. */
  glob(pattern: string): string[] {
    this.#unrepeatable = true
    try {
      return globSync(pattern)
        .slice(0, MAX_GLOB_MATCHES)
        .map((m) => posix.resolve('/', m))
    } catch {
      return []
    }
  }

  /** Whether the analysis made a read that cannot be re-checked cheaply. */
  get unrepeatable(): boolean {
    return this.#unrepeatable
  }

  observations(): Observation[] {
    return [...this.#seen.values()]
  }
}

/** Whether every observation still holds: each read asked again gives an answer with the same fingerprint. */
export function stillTrue(observations: readonly Observation[]): boolean {
  return observations.every((o) => fingerprint(PROBES[o.kind](o.path)) === o.answer)
}
