/**
 * Files whose content the same command wrote and can be known statically: `echo CODE > x.sh`,
 * `cat > x.sh <<EOF`, `printf ... >> x.sh`, and process substitutions `<(...)`. Running such a file later in
 * the command (`bash x.sh`, `. x.sh`, `./x.sh`, `python x.py`, `bash < x.sh`, `source <(echo ...)`) is
 * analysed as the code it holds, so writing code first and running it second hides nothing.
 */
import { lexicalPath } from './paths.ts'
import type { ShellCommand } from '../../core/types.ts'
import type { AnalysisState, Scope } from './state.ts'

/** At most this many files get their text remembered per analysed command (each one is bounded by the word budget). */
const MAX_FILES = 32

/** A file this command wrote: its text (none when svc could not compute it) and `since`, see AnalysisState.files. */
export interface WrittenFile {
  readonly text?: string
  readonly since: number
}

/**
 * Paths whose content the kernel makes per process or on the fly: `/proc` (the daemon resolving
 * `/proc/self/cwd` would read its own, not the agent shell's) and a process's own descriptors and terminal.
 */
function kernelView(path: string): boolean {
  return path.startsWith('/proc/') || /^\/dev\/(?:fd\/|std(?:in|out|err)$|tty$)/.test(path)
}

/** Directories under /dev that hold ordinary files anyone can write (tmpfs): scripts can be planted there. */
const DEV_FILE_DIRS = /^\/dev\/(?:shm|mqueue)\//

/** Whether a write to `path` stores text a later read gets back (not a device, not a process-relative name). */
function holdsFiles(path: string): boolean {
  return !path.startsWith('/dev/') || DEV_FILE_DIRS.test(path)
}

/**
 * Whether `raw` is named relative to a directory the command moved to and svc could not follow
 * (`cd "$(cat d)"`): lexicalPath resolves it against the home as a stand-in, which says nothing about the file.
 * (A call that sent no working directory at all is resolved against the home, as before.)
 */
function inLostDirectory(st: AnalysisState, scope: Scope, raw: string): boolean {
  return scope.cwd === undefined && st.options.cwd !== undefined && !/^\s*(?:\/|~(?:\/|$)|\$HOME(?:\/|$)|\$\{HOME\}(?:\/|$))/.test(raw)
}

const pathOf = (st: AnalysisState, scope: Scope, raw: string): string | undefined => lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })

/** From here on the text of `path` is unknown: a later run or read of it is refused, not looked up on disk. */
function markUnknown(st: AnalysisState, path: string): void {
  st.files.set(path, { since: st.commands.length })
}

/** Remembers what a write by redirection puts in `raw` (`>>` appends to what the file held). */
export function rememberWrite(st: AnalysisState, scope: Scope, raw: string, text: string, append: boolean): void {
  const path = pathOf(st, scope, raw)
  if (path === undefined || !holdsFiles(path)) return
  const earlier = st.files.get(path)
  // `>>` onto a file this command did not write appends to what is on disk: that is part of the file too.
  const before = !append ? '' : earlier !== undefined ? earlier.text : onDisk(st, path)
  const content = before === undefined ? undefined : before + text
  if (content === undefined || content.length > st.budget.maxBytes || (earlier === undefined && st.files.size >= MAX_FILES)) return markUnknown(st, path)
  st.files.set(path, { text: content, since: st.commands.length })
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
  const path = pathOf(st, scope, raw)
  if (path !== undefined && holdsFiles(path)) markUnknown(st, path)
}

/** Files a command changes in ways svc does not compute (the files a patch changes). */
export function forgetFiles(st: AnalysisState, paths: readonly string[]): void {
  for (const path of paths) markUnknown(st, path)
}

/**
 * `cp SRC DST` of one file: DST gets SRC's text when svc can read it (`cp build.sh /tmp/b.sh && bash /tmp/b.sh`
 * runs build.sh's code). Anything else a cp writes stays unknown (changedUnknown: cp names it).
 */
export function rememberCopy(st: AnalysisState, scope: Scope, argv: readonly string[]): void {
  const operands = argv.slice(1).filter((a) => !a.startsWith('-'))
  if (operands.length !== 2 || argv.some((a) => /^-[a-zA-Z]*[rRatTs]|^--(?:recursive|archive|target|symbolic|no-target)/.test(a))) return
  const [src, dst] = operands as [string, string]
  const text = contentOf(st, scope, src, argv)
  const dir = pathOf(st, scope, dst)
  if (text === undefined || dir === undefined) return
  rememberWrite(st, scope, st.disk.isDirectory(dir) ? `${dir}/${src.slice(src.lastIndexOf('/') + 1)}` : dst, text, false)
}

/**
 * Programs that may change the files they name, beyond what their recorded writes show: in-place editors,
 * copiers and extractors, and interpreters running inline code.
 */
const MAY_WRITE: ReadonlySet<string> = new Set([
  'sed',
  'gsed',
  'perl',
  'ruby',
  'awk',
  'gawk',
  'ed',
  'ex',
  'vi',
  'vim',
  'nvim',
  'dd',
  'truncate',
  'install',
  'rsync',
  'unzip',
  'tar',
  'cpio',
  'ln',
  'cp',
  'mv',
  'tee',
  'python',
  'python3',
  'node',
  'deno',
  'bun',
  'php',
  'lua',
  'Rscript',
  'osascript',
  'sponge',
  'curl',
  'wget',
  'xargs',
  'find',
])
/** git subcommands that rewrite files of the work tree. */
const GIT_REWRITES: ReadonlySet<string> = new Set([
  'checkout',
  'restore',
  'reset',
  'stash',
  'pull',
  'merge',
  'rebase',
  'cherry-pick',
  'revert',
  'switch',
  'mv',
  'clone',
  'worktree',
])

/** Whether command `c` may have changed the file `path` (named `name`) in a way svc does not compute. */
function mayChange(c: ShellCommand, path: string, name: string): boolean {
  if (c.writes?.includes(path)) return true
  // `npm pkg set scripts.test=...` (and the older `npm set-script`) rewrite the project's package.json.
  if (c.program === 'npm') return name === 'package.json' && (c.argv[1] === 'set-script' || (c.argv[1] === 'pkg' && ['set', 'delete', 'fix'].includes(c.argv[2] ?? '')))
  if (!MAY_WRITE.has(c.program) && !(c.program === 'git' && c.argv.some((a) => GIT_REWRITES.has(a)))) return false
  // A path operand that is the file, or inline code (`-c`/`-e` text, `of=`) that mentions its name.
  return c.paths?.includes(path) === true || c.argv.slice(1).some((a) => /\s|[("'=]/.test(a) && a.includes(name))
}

/**
 * Whether an earlier part of this command may have changed `path` in a way svc does not know: a redirect whose
 * output it could not compute, or a later command that may change it (mayChange). `self` is the command running
 * the file, which does not count. Its text on disk, or what this command wrote, is then not what will run.
 */
function changedUnknown(st: AnalysisState, path: string, self: readonly string[] | undefined): boolean {
  const written = st.files.get(path)
  if (written !== undefined && written.text === undefined) return true
  const name = path.slice(path.lastIndexOf('/') + 1)
  const running = self?.join('\0')
  // Only what ran after the file got its text (when this command wrote it) can have changed it since.
  return st.commands.slice(written?.since ?? 0).some((c) => mayChange(c, path, name) && c.argv.join('\0') !== running)
}

/** The pseudo path a process substitution `<(...)` is read through; its content is remembered when known. */
export function processSubstitutionFile(st: AnalysisState, output: string | undefined): string {
  const path = `/dev/fd/${63 - Math.min(st.procsubs++, 40)}`
  if (output !== undefined && output.length <= st.budget.maxBytes) st.files.set(path, { text: output, since: st.commands.length })
  else st.files.delete(path)
  return path
}

/** What reading `raw` finds: text this command wrote, text on disk, `changed` (changedUnknown), or nothing. */
type Read = { readonly text: string; readonly onDisk: boolean } | 'changed' | undefined

function read(st: AnalysisState, scope: Scope, raw: string | undefined, self: readonly string[] | undefined): Read {
  if (raw === undefined) return undefined
  if (raw.startsWith('/dev/fd/')) {
    const text = st.files.get(raw)?.text
    return text === undefined ? undefined : { text, onDisk: false }
  }
  const path = pathOf(st, scope, raw)
  if (path === undefined) return undefined
  if (changedUnknown(st, path, self)) return 'changed'
  const written = st.files.get(path)?.text
  if (written !== undefined) return { text: written, onDisk: false }
  if (inLostDirectory(st, scope, raw) || kernelView(path) || !holdsFiles(path)) return undefined
  const text = st.disk.text(path)
  return text === undefined ? undefined : { text, onDisk: true }
}

/** The content the command wrote to `raw` earlier, when known (`self`: the command reading it). */
export function writtenText(st: AnalysisState, scope: Scope, raw: string | undefined, self?: readonly string[]): string | undefined {
  if (raw === undefined || st.files.size === 0) return undefined
  const found = read(st, scope, raw, self)
  return typeof found === 'object' && !found.onDisk ? found.text : undefined
}

/**
 * The content of a file a command reads (a curl config, a wget URL list, a patch, a copy's source): written
 * earlier in the same command, or on disk (bounded). Reading disk is a snapshot: good enough to see what the
 * file says now, which is what runs unless something races it.
 */
export function contentOf(st: AnalysisState, scope: Scope, raw: string | undefined, self?: readonly string[]): string | undefined {
  const found = read(st, scope, raw, self)
  return typeof found === 'object' ? found.text : undefined
}

/**
 * The text of a file a program obeys (a config, a Makefile, package.json, a hook, an .npmrc): as contentOf, but
 * one this command changed in a way svc cannot compute raises `unanalysable_script`, since what it says is unknown.
 */
export function instructionsOf(st: AnalysisState, scope: Scope, raw: string | undefined): string | undefined {
  const found = read(st, scope, raw, undefined)
  if (found === 'changed') st.signals.add('unanalysable_script')
  return typeof found === 'object' ? found.text : undefined
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

/**
 * An executable format (ELF, Mach-O, PE; the bytes of Mach-O magic read as U+FFFD) or mostly control bytes.
 * A few NUL bytes in a script do not make it binary: such a script is analysed (NULs dropped).
 */
function isBinary(text: string): boolean {
  if (KERNEL_IMAGE.test(text) || text.startsWith('MZ')) return true
  const head = text.slice(0, 4096)
  let control = 0
  for (let i = 0; i < head.length; i++) {
    const c = head.charCodeAt(i)
    if (c < 9 || (c > 13 && c < 32) || c === 0xfffd) control++
  }
  return control > head.length / 10
}

/**
 * The script a command runs (`bash X`, `. X`, `python3 X`, `./X`, a `.envrc`): its text, written earlier in the
 * command or on disk; `unreadable` when it runs but its text cannot be known (refused as `unanalysable_script`);
 * undefined when nothing runs that svc reads (nothing there, a directory, a device, a file opaque to its runner).
 * Unreadable: a file this command changed unknowably, one named relative to a directory svc lost track of, a
 * process-relative path (`/proc/self/root/...`, `/dev/fd/3`) other than this command's process substitutions, a
 * FIFO or socket, a file this process may not read, or one over the read limit that is not opaque to its runner.
 */
export function scriptToRun(
  st: AnalysisState,
  scope: Scope,
  raw: string | undefined,
  runner: ScriptRunner,
  self: readonly string[],
): { text: string; onDisk: boolean } | 'unreadable' | undefined {
  if (raw === undefined) return undefined
  const found = read(st, scope, raw, self)
  if (found === 'changed') return 'unreadable'
  if (found !== undefined) return found.onDisk && opaqueTo(runner, found.text) ? undefined : found
  const path = pathOf(st, scope, raw)
  if (path === undefined || inLostDirectory(st, scope, raw)) return 'unreadable'
  const fd = /^\/dev\/fd\/(\d+)$/.exec(path)
  // `<(...)` is read through /dev/fd/63, 62, ...: its output is judged where the substitution is (execSubstitution).
  if (fd && Number(fd[1]) > 63 - st.procsubs && Number(fd[1]) <= 63) return undefined
  if (kernelView(path)) return 'unreadable'
  if (!holdsFiles(path)) return undefined
  const onDiskNow = st.disk.script(path)
  if (onDiskNow === 'unreadable') return 'unreadable'
  // Readable text here is opaque to the runner (read() gives every other one); a large file is judged by its head.
  if (onDiskNow === 'none' || 'text' in onDiskNow) return undefined
  return opaqueTo(runner, onDiskNow.head) ? undefined : 'unreadable'
}
