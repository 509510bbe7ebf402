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

/**
 * Paths that name something of the process that opens them (its descriptors, its root and working directory,
 * another process's view): the daemon resolving them would read its own, not the agent shell's.
 */
export function processRelative(path: string): boolean {
  return /^\/dev\/(?:fd\/|std(?:in|out|err)$|tty$)|^\/proc\/(?:self|thread-self|\d+)(?:\/|$)/.test(path)
}

/** Directories under /dev that hold ordinary files anyone can write (tmpfs): scripts can be planted there. */
const DEV_FILE_DIRS = /^\/dev\/(?:shm|mqueue)\//

/** Whether a write to `path` stores text a later read gets back (not a device, not a process-relative name). */
function holdsFiles(path: string): boolean {
  return !path.startsWith('/dev/') || DEV_FILE_DIRS.test(path)
}

/**
 * Whether the command moved to a directory svc could not follow (`cd "$(cat d)"`): a script named relative to
 * it is unknown, and running one (`./x.sh`, `bash x.sh`, `. x`, `direnv allow`) raises `unanalysable_script`.
 * (A call that sent no working directory at all is resolved against the home, as before; what npm, make, git
 * and pytest read there is still looked for from the call's own directory.)
 */
export function cwdLost(st: AnalysisState, scope: Scope): boolean {
  return scope.cwd === undefined && st.options.cwd !== undefined
}

/** Whether `raw` names a path relative to the working directory (not `/...`, `~/...` or `$HOME/...`). */
function relative(raw: string): boolean {
  return !/^\s*(?:\/|~(?:\/|$)|\$HOME(?:\/|$)|\$\{HOME\}(?:\/|$))/.test(raw)
}

/** Remembers what a write by redirection puts in `raw` (appending to what is already known). */
export function rememberWrite(st: AnalysisState, scope: Scope, raw: string, text: string, append: boolean): void {
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path === undefined || !holdsFiles(path)) return
  // `>>` onto a file this command did not write appends to what is on disk: that is part of the file too.
  const before = !append ? '' : st.files.has(path) ? st.files.get(path)! : st.unknownFiles.has(path) ? undefined : onDisk(st, path)
  const content = before === undefined ? undefined : before + text
  if (content === undefined || content.length > st.budget.maxBytes || (!st.files.has(path) && st.files.size >= MAX_FILES)) {
    st.files.delete(path)
    st.unknownFiles.add(path)
    return
  }
  st.unknownFiles.delete(path)
  st.files.set(path, content)
  st.fileMarks.set(path, st.commands.length)
}

/** A file's current text ('' when there is none), or undefined when something is there that cannot be read. */
function onDisk(st: AnalysisState, path: string): string | undefined {
  const found = st.disk.script(path)
  return found === 'none' ? '' : found === 'unreadable' || 'head' in found ? undefined : found.text
}

/** After a command ran: what it printed lands in the files it redirects to (or they become unknown). */
export function rememberWrites(st: AnalysisState, scope: Scope, writes: readonly string[], appends: ReadonlySet<string>, output: string | undefined): void {
  for (const target of writes) {
    if (output === undefined) forgetWrite(st, scope, target)
    else rememberWrite(st, scope, target, output.endsWith('\n') || output === '' ? output : `${output}\n`, appends.has(target))
  }
}

/** Forgets a file whose content can no longer be known (written by a command with unknown output). */
export function forgetWrite(st: AnalysisState, scope: Scope, raw: string): void {
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path === undefined || !holdsFiles(path)) return
  st.files.delete(path)
  st.unknownFiles.add(path)
}

/** Files a command changes in ways svc does not compute (the files a patch changes): their text is unknown from here on. */
export function forgetFiles(st: AnalysisState, paths: readonly string[]): void {
  for (const path of paths) {
    st.files.delete(path)
    st.unknownFiles.add(path)
  }
}

/**
 * `cp SRC DST` of one file: DST gets SRC's text when svc can read it (`cp build.sh /tmp/b.sh && bash /tmp/b.sh`
 * runs build.sh's code). Anything else a cp writes stays unknown (changedUnknown).
 */
export function rememberCopy(st: AnalysisState, scope: Scope, argv: readonly string[]): void {
  const operands = argv.slice(1).filter((a) => !a.startsWith('-'))
  if (operands.length !== 2 || argv.some((a) => /^-[a-zA-Z]*[rRatTs]|^--(?:recursive|archive|target|symbolic|no-target)/.test(a))) return
  const [src, dst] = operands as [string, string]
  const text = contentOf(st, scope, src, argv)
  const dir = lexicalPath(dst, { home: st.options.home, cwd: scope.cwd })
  if (text === undefined || dir === undefined) return
  rememberWrite(st, scope, st.disk.isDirectory(dir) ? `${dir}/${src.slice(src.lastIndexOf('/') + 1)}` : dst, text, false)
}

/**
 * Programs that may change the files they name, beyond what their recorded writes show: in-place editors,
 * copiers and extractors, git commands that rewrite the work tree, and interpreters running inline code.
 */
const MAY_WRITE: ReadonlySet<string> = new Set(['sed', 'gsed', 'perl', 'ruby', 'awk', 'gawk', 'ed', 'ex', 'vi', 'vim', 'nvim', 'dd', 'truncate', 'install', 'rsync', 'unzip', 'tar', 'cpio', 'ln', 'cp', 'mv', 'tee', 'python', 'python3', 'node', 'deno', 'bun', 'php', 'lua', 'Rscript', 'osascript', 'sponge', 'curl', 'wget', 'xargs', 'find'])
const GIT_REWRITES: ReadonlySet<string> = new Set(['checkout', 'restore', 'reset', 'stash', 'pull', 'merge', 'rebase', 'cherry-pick', 'revert', 'switch', 'mv', 'clone', 'worktree'])

/**
 * Whether an earlier part of this command may have changed `path` in a way svc does not know: a redirect whose
 * output it could not compute, a command that lists it among its writes, or a program of MAY_WRITE (or a git
 * command that rewrites the work tree) that names the file. Its text on disk is then not what will run.
 */
export function changedUnknown(st: AnalysisState, path: string, self?: readonly string[]): boolean {
  if (st.unknownFiles.has(path)) return true
  const name = path.slice(path.lastIndexOf('/') + 1)
  const running = self?.join('\0')
  // Only what ran after its content became known (a file this command wrote) can have changed it since.
  return st.commands.slice(st.fileMarks.get(path) ?? 0).some((c) => {
    if (c.argv.join('\0') === running) return false
    if (!st.files.has(path) && c.writes?.includes(path)) return true
    // `npm pkg set scripts.test=...` (and the older `npm set-script`) rewrite the project's package.json.
    if (name === 'package.json' && c.program === 'npm' && (c.argv[1] === 'set-script' || (c.argv[1] === 'pkg' && ['set', 'delete', 'fix'].includes(c.argv[2] ?? '')))) return true
    if (!MAY_WRITE.has(c.program) && !(c.program === 'git' && c.argv.some((a) => GIT_REWRITES.has(a)))) return false
    // A path operand that is the file, or inline code (`-c`/`-e` text, `of=`) that mentions its name.
    return c.paths?.includes(path) === true || c.argv.slice(1).some((a) => /\s|[("'=]/.test(a) && a.includes(name))
  })
}

/** The pseudo path a process substitution `<(...)` is read through; its content is remembered when known. */
export function processSubstitutionFile(st: AnalysisState, output: string | undefined): string {
  const path = `/dev/fd/${63 - Math.min(st.procsubs++, 40)}`
  if (output !== undefined && output.length <= st.budget.maxBytes) st.files.set(path, output)
  else st.files.delete(path)
  return path
}

/**
 * What runs a file: a shell given it (`sh x`, `bash x`, `. x`), the kernel (`./x`), or an interpreter
 * (`python3 x`). It decides which bytes make a file opaque rather than a script (see opaqueTo).
 */
export type ScriptRunner = 'shell' | 'exec' | 'interpreter'

/** An image the kernel runs itself: ELF, or Mach-O (its magic bytes are not UTF-8, so they read as U+FFFD). */
const KERNEL_IMAGE = /^(?:\x7fELF|\ufffd\ufffd\ufffd)/

/**
 * Whether `runner` treats a file starting with `text` as something other than source it reads. A shell reads
 * any file as shell text: dash drops NUL bytes and runs the rest, even after an ELF header, and bash runs a
 * file full of other control bytes. The kernel runs ELF and Mach-O images and hands anything else to a shell.
 * An interpreter's compiled or binary input (`python3 x.pyc`) is opaque.
 */
function opaqueTo(runner: ScriptRunner, text: string): boolean {
  if (runner === 'shell') return false
  return runner === 'exec' ? KERNEL_IMAGE.test(text) : isBinary(text)
}

/** A script's text: written earlier in the command, or a file on disk that `runner` reads as source. */
export function scriptText(st: AnalysisState, scope: Scope, raw: string | undefined, runner: ScriptRunner, self?: readonly string[]): { text: string; onDisk: boolean } | undefined {
  const written = writtenText(st, scope, raw, self)
  if (written !== undefined) return { text: written, onDisk: false }
  const text = contentOf(st, scope, raw, self)
  return text === undefined || opaqueTo(runner, text) ? undefined : { text, onDisk: true }
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
export function writtenText(st: AnalysisState, scope: Scope, raw: string | undefined, self?: readonly string[]): string | undefined {
  if (raw === undefined || st.files.size === 0) return undefined
  if (raw.startsWith('/dev/fd/')) return st.files.get(raw)
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  return path === undefined || changedUnknown(st, path, self) ? undefined : st.files.get(path)
}

/**
 * The content of a file a command reads as instructions (a curl config, a wget URL list, a patch): written
 * earlier in the same command, or on disk (bounded). Reading disk is a snapshot: good enough to see what the
 * file says now, which is what runs unless something races it.
 */
export function contentOf(st: AnalysisState, scope: Scope, raw: string | undefined, self?: readonly string[]): string | undefined {
  if (raw === undefined) return undefined
  const written = writtenText(st, scope, raw, self)
  if (written !== undefined) return written
  if (cwdLost(st, scope) && relative(raw)) return undefined
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path === undefined || processRelative(path) || path.startsWith('/proc/') || !holdsFiles(path)) return undefined
  // Instructions (a config, a Makefile, package.json, hooks) this command changed unknowably: what they say is unknown.
  if (changedUnknown(st, path, self)) return void st.signals.add('unanalysable_script')
  return st.disk.text(path)
}

/**
 * Whether a script that runs (`bash X`, `. X`, `python3 X`, `./X`) has text svc cannot read, so what it does is
 * unknown: a file over the read limit that is not opaque to its runner, a FIFO or socket, a file this process may not read,
 * a process-relative path (`/proc/self/root/...`, `/dev/fd/3`) other than the process substitutions of this
 * command, or a path relative to a working directory svc lost track of. Nothing there, a directory, a device or a binary is not such a script (binaries are not read).
 */
export function unreadableScript(st: AnalysisState, scope: Scope, raw: string | undefined, runner: ScriptRunner, self?: readonly string[]): boolean {
  if (raw === undefined || writtenText(st, scope, raw, self) !== undefined) return false
  if (cwdLost(st, scope) && relative(raw)) return true
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path === undefined) return true
  const fd = /^\/dev\/fd\/(\d+)$/.exec(path)
  // `<(...)` is read through /dev/fd/63, 62, ...: its output is judged where the substitution is (execSubstitution).
  if (fd && Number(fd[1]) > 63 - st.procsubs && Number(fd[1]) <= 63) return false
  if (processRelative(path) || path.startsWith('/proc/')) return true
  if (!holdsFiles(path)) return false
  if (changedUnknown(st, path, self)) return true
  const found = st.disk.script(path)
  if (found === 'unreadable') return true
  // A readable text here is opaque to the runner: scriptText gives every other one.
  if (found === 'none' || 'text' in found) return false
  return !opaqueTo(runner, found.head)
}
