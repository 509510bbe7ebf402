/**
 * Files whose content the same command wrote and can be known statically: `echo CODE > x.sh`,
 * `cat > x.sh <<EOF`, `printf ... >> x.sh`, and process substitutions `<(...)`. Running such a file later in
 * the command (`bash x.sh`, `. x.sh`, `./x.sh`, `python x.py`, `bash < x.sh`, `source <(echo ...)`) is
 * analysed as the code it holds, so writing code first and running it second hides nothing.
 */
import { lexicalPath } from './paths.ts'
import type { AnalysisState, Scope } from './state.ts'

/** At most this many files are remembered per analysed command (each one is bounded by the word budget). */
const MAX_FILES = 32

/** Remembers what a write by redirection puts in `raw` (appending to what is already known). */
export function rememberWrite(st: AnalysisState, scope: Scope, raw: string, text: string, append: boolean): void {
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path === undefined || path.startsWith('/dev/')) return
  const before = append ? (st.files.get(path) ?? '') : ''
  const content = before + text
  if (content.length > st.budget.maxBytes) return void st.files.delete(path)
  if (!st.files.has(path) && st.files.size >= MAX_FILES) return
  st.files.set(path, content)
}

/** Forgets a file whose content can no longer be known (written by a command with unknown output). */
export function forgetWrite(st: AnalysisState, scope: Scope, raw: string): void {
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path !== undefined) st.files.delete(path)
}

/** The pseudo path a process substitution `<(...)` is read through; its content is remembered when known. */
export function processSubstitutionFile(st: AnalysisState, output: string | undefined): string {
  const path = `/dev/fd/${63 - Math.min(st.procsubs++, 40)}`
  if (output !== undefined && output.length <= st.budget.maxBytes) st.files.set(path, output)
  else st.files.delete(path)
  return path
}

/** A script's text: written earlier in the command, or a text file on disk (undefined for binaries). */
export function scriptText(st: AnalysisState, scope: Scope, raw: string | undefined): { text: string; onDisk: boolean } | undefined {
  const written = writtenText(st, scope, raw)
  if (written !== undefined) return { text: written, onDisk: false }
  const text = contentOf(st, scope, raw)
  return text === undefined || isBinary(text) ? undefined : { text, onDisk: true }
}

/**
 * An executable format (ELF, Mach-O, PE, a universal binary) or mostly control bytes. A few NUL bytes in a
 * script do not make it binary: dash drops them and runs the rest, so such a script is analysed (NULs dropped).
 */
function isBinary(text: string): boolean {
  if (/^(\x7fELF|MZ|\ufffd\ufffd\ufffd\ufffd|\xca\xfe\xba\xbe|\xfe\xed\xfa|\xcf\xfa\xed\xfe)/.test(text)) return true
  const head = text.slice(0, 4096)
  let control = 0
  for (let i = 0; i < head.length; i++) {
    const c = head.charCodeAt(i)
    if (c < 9 || (c > 13 && c < 32) || c === 0xfffd) control++
  }
  return control > head.length / 10
}

/** The content the command wrote to `raw` earlier, when known. */
export function writtenText(st: AnalysisState, scope: Scope, raw: string | undefined): string | undefined {
  if (raw === undefined || st.files.size === 0) return undefined
  if (raw.startsWith('/dev/fd/')) return st.files.get(raw)
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  return path === undefined ? undefined : st.files.get(path)
}

/**
 * The content of a file a command reads as instructions (a curl config, a wget URL list, a patch): written
 * earlier in the same command, or on disk (bounded). Reading disk is a snapshot: good enough to see what the
 * file says now, which is what runs unless something races it.
 */
export function contentOf(st: AnalysisState, scope: Scope, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const written = writtenText(st, scope, raw)
  if (written !== undefined) return written
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path === undefined || path.startsWith('/dev/') || path.startsWith('/proc/')) return undefined
  return st.disk.text(path)
}
