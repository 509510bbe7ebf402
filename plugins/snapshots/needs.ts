/**
 * Which calls get a snapshot first: a shell command unless every simple command in it is one that only reads
 * (so deleting, moving or rewriting files, any git command that changes the work tree or history, any program
 * that runs code svc cannot see, and every command the analysis could not read), and a file tool that writes a
 * file that already exists. Its workspace is the git work tree around the call's directory (or the written file).
 */
import { existsSync, lstatSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { EvalRequest, ShellCommand } from '../../core/index.ts'

/** Programs that only read and print (with the flags that would make them write ruled out below). */
const READS = new Set(
  'ls cat head tail grep egrep fgrep rg ag wc echo printf pwd true false which type file stat du df diff cmp less more tree date env printenv id whoami uname sort uniq cut tr jq nl basename dirname realpath readlink test [ sleep hostname'.split(
    ' ',
  ),
)
/** git subcommands that change nothing in the work tree, the index of history or the refs. */
const GIT_READS = new Set('status log diff show blame grep rev-parse ls-files ls-tree cat-file describe shortlog help version rev-list show-ref for-each-ref'.split(' '))
const FILE_WRITE_TOOL = /^(write|edit|multiedit|notebookedit|write_file|replace|edit_file|apply_patch|str_replace_based_edit_tool)$/i

function onlyReads(c: ShellCommand): boolean {
  if ((c.writes ?? []).some((w) => w !== '/dev/null')) return false
  if (c.program === 'git') {
    const sub = c.argv.slice(1).find((a) => !a.startsWith('-'))
    if (sub === 'branch' || sub === 'tag' || sub === 'remote') return c.argv.length <= 3 && !c.argv.some((a) => /^-[a-zA-Z]*[dDmMfc]/.test(a) && a !== '-a')
    if (sub === 'config') return c.argv.some((a) => /^(--get|--list|-l|--get-all|--get-regexp)$/.test(a))
    return sub !== undefined && GIT_READS.has(sub)
  }
  if (c.program === 'sed') return !c.argv.some((a) => /^(-[a-zA-Z]*i|--in-place)/.test(a))
  if (c.program === 'find') return !c.argv.some((a) => /^-(delete|exec|execdir|ok|okdir|fprint|fprintf|fls)$/.test(a))
  return READS.has(c.program)
}

/** The git work tree `dir` is in (the nearest directory up with a `.git`), or undefined. */
export function workspaceOf(dir: string | undefined): string | undefined {
  if (!dir) return undefined
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at
    if (dirname(at) === at) return undefined
  }
}

/** The workspace to snapshot before `request` runs, or undefined when the call cannot change tracked work. */
export function snapshotTarget(request: EvalRequest): string | undefined {
  if (request.shell) {
    const s = request.shell
    const risky = s.error !== undefined || s.commands.length === 0 || s.commands.some((c) => !onlyReads(c))
    return risky ? workspaceOf(request.cwd) : undefined
  }
  if (!FILE_WRITE_TOOL.test(request.tool)) return undefined
  const existing = request.paths.find((p) => {
    try {
      return lstatSync(p).isFile()
    } catch {
      return false
    }
  })
  return existing ? workspaceOf(dirname(existing)) : undefined
}
