/**
 * Finding the agents' transcripts: every registered harness with a `history` names its directories and file
 * pattern; this walks them (never following symlinks, bounded) and reads each file through the harness.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { HarnessDefinition, HarnessEnv, HistoryRead } from '../../harness-contract/index.ts'

/** One transcript file and what its harness read from it. */
export interface Transcript extends HistoryRead {
  readonly harness: string
  readonly path: string
  readonly mtimeMs: number
}

/** A file that could not be read at all (permissions, too large). */
export interface UnreadableFile {
  readonly harness: string
  readonly path: string
  readonly why: string
}

const MAX_FILE = 256 * 1024 * 1024
const MAX_DEPTH = 8

function walk(dir: string, depth: number, out: string[]): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names.sort()) {
    const path = join(dir, name)
    let st: ReturnType<typeof lstatSync>
    try {
      st = lstatSync(path)
    } catch {
      continue
    }
    if (st.isDirectory() && depth < MAX_DEPTH) walk(path, depth + 1, out)
    else if (st.isFile()) out.push(path)
  }
}

function readSibling(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** Transcripts of `harnesses` modified at or after `sinceMs`, and the files that could not be read. */
export function readTranscripts(
  harnesses: readonly HarnessDefinition[],
  env: HarnessEnv,
  sinceMs = 0,
): { transcripts: Transcript[]; unreadable: UnreadableFile[]; searched: { harness: string; dir: string }[] } {
  const transcripts: Transcript[] = []
  const unreadable: UnreadableFile[] = []
  const searched: { harness: string; dir: string }[] = []
  for (const h of harnesses) {
    for (const loc of h.history?.locations(env) ?? []) {
      searched.push({ harness: h.id, dir: loc.dir })
      const files: string[] = []
      walk(loc.dir, 0, files)
      for (const path of files.filter((p) => loc.files.test(relative(loc.dir, p)))) {
        try {
          const st = lstatSync(path)
          if (st.mtimeMs < sinceMs) continue
          if (st.size > MAX_FILE) {
            unreadable.push({ harness: h.id, path, why: `larger than ${MAX_FILE / 1024 / 1024} MiB` })
            continue
          }
          const history = h.history!
          const read = history.readFile ? history.readFile(path) : history.read(readFileSync(path, 'utf8'), path, readSibling)
          transcripts.push({ harness: h.id, path, mtimeMs: st.mtimeMs, ...read })
        } catch (err) {
          unreadable.push({ harness: h.id, path, why: (err as Error).message })
        }
      }
    }
  }
  return { transcripts, unreadable, searched }
}
