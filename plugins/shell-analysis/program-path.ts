/**
 * What a program word really runs when its name says otherwise: `ln -s /bin/rm ./safe && ./safe -rf ~`,
 * `cp /bin/rm ./ls && ./ls -rf ~`, a symlink on disk to a system binary, `hash -p /bin/rm ls; ls`, and
 * `PATH=/tmp/x:$PATH ls` when /tmp/x/ls exists (then that file runs, and is read like any script run by path).
 */
import { existsSync, realpathSync } from 'node:fs'
import { posix } from 'node:path'
import { lexicalPath } from './paths.ts'
import type { AnalysisState, Scope } from './state.ts'

/** Directories whose programs are the system's own: a name found there first is the program it says. */
const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin(\/|$)|^\/opt\/homebrew\/s?bin(\/|$)|^\/nix\/store\/|^\/run\/current-system\/|^\/snap\/bin(\/|$)/

/** The system binary a path-invoked program stands for (a link or copy of one made in this command, or a symlink on disk). */
export function systemBinaryBehind(st: AnalysisState, scope: Scope, word: string): string | undefined {
  const path = lexicalPath(word, { home: st.options.home, cwd: scope.cwd })
  if (path === undefined) return undefined
  const same = st.links.get(path) ?? st.programCopies.get(path)
  if (same !== undefined) return SYSTEM_BIN.test(same) && posix.basename(same) !== posix.basename(path) ? same : undefined
  if (SYSTEM_BIN.test(path)) return undefined
  try {
    const real = realpathSync(path)
    return real !== path && SYSTEM_BIN.test(real) && posix.basename(real) !== posix.basename(path) ? real : undefined
  } catch {
    return undefined
  }
}

/** `cp /bin/rm ./ls`: the copy runs what the system binary runs, for the rest of this command. */
export function rememberProgramCopy(st: AnalysisState, scope: Scope, argv: readonly string[]): void {
  const operands = argv.slice(1).filter((a) => !a.startsWith('-'))
  if (operands.length !== 2) return
  const ctx = { home: st.options.home, cwd: scope.cwd }
  const from = lexicalPath(operands[0]!, ctx)
  const to = lexicalPath(operands[1]!, ctx)
  if (from !== undefined && to !== undefined && SYSTEM_BIN.test(from)) st.programCopies.set(to, from)
}

/**
 * A bare program name looked up in a PATH the command set itself: the first directory holding it, when
 * that is not a system directory (a file planted there runs instead of the system's program).
 */
export function plantedOnPath(st: AnalysisState, scope: Scope, name: string): string | undefined {
  const path = scope.vars.get('PATH')
  if (path === undefined || name.includes('/') || name === '') return undefined
  for (const dir of path.split(':').slice(0, 32)) {
    const full = lexicalPath(`${dir === '' ? '.' : dir}/${name}`, { home: st.options.home, cwd: scope.cwd })
    if (full === undefined) continue
    const there = st.files.has(full) || existsSync(full)
    if (!there) continue
    return SYSTEM_BIN.test(full) ? undefined : full
  }
  return undefined
}
