/**
 * Programs that carry a shell command inside their arguments: `ssh HOST CMD...` (the remote side runs it
 * through a shell), `git -c alias.x='!CMD'` / `core.pager` / `core.sshCommand`, and `npx -c CMD`; `npx PKG ...`
 * runs PKG like a wrapper.
 */

/** A shell string nested in the argv, or (npx) the index where the wrapped argv starts. */
export type Nested =
  | { readonly kind: 'string'; readonly text: string; readonly exclude: number[]; readonly label: string }
  | { readonly kind: 'argv'; readonly start: number; readonly exclude: number[]; readonly text: string; readonly label: string }

const SSH_VALUE_OPTIONS = 'BbcDEeFIiJLlmOopQRSWw'
const GIT_SHELL_KEYS = /^(alias\.[^=]+=!|core\.(pager|sshcommand|editor|fsmonitor|hookspath)=|sequence\.editor=|diff\.external=|gpg\.program=|credential\.helper=!)/i

function ssh(argv: readonly string[]): Nested | undefined {
  let i = 1
  for (; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      i++
      break
    }
    if (!arg.startsWith('-')) break
    if (arg.length === 2 && SSH_VALUE_OPTIONS.includes(arg[1]!)) i++
  }
  const commandStart = i + 1
  if (commandStart >= argv.length) return undefined
  const indexes = argv.map((_, k) => k).filter((k) => k >= commandStart)
  return { kind: 'string', text: argv.slice(commandStart).join(' '), exclude: indexes, label: 'ssh' }
}

function git(argv: readonly string[]): Nested | undefined {
  for (let i = 1; i < argv.length - 1; i++) {
    if (argv[i] !== '-c') continue
    const value = argv[i + 1]!
    const m = GIT_SHELL_KEYS.exec(value)
    if (m) return { kind: 'string', text: value.slice(m[0].length), exclude: [i + 1], label: '-c' }
  }
  return undefined
}

function npx(argv: readonly string[]): Nested | undefined {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if ((arg === '-c' || arg === '--call') && argv[i + 1] !== undefined) return { kind: 'string', text: argv[i + 1]!, exclude: [i + 1], label: '-c' }
    if (arg.startsWith('--call=')) return { kind: 'string', text: arg.slice(7), exclude: [i], label: '-c' }
    if (arg === '-p' || arg === '--package') {
      i++
      continue
    }
    if (arg.startsWith('-')) continue
    return { kind: 'argv', start: i, exclude: [], text: '', label: '' }
  }
  return undefined
}

/** Finders of nested command strings, by program. */
export const NESTED_COMMANDS: Readonly<Record<string, (argv: readonly string[]) => Nested | undefined>> = { ssh, git, npx, bunx: npx, pnpx: npx }

/** `read [-r] [-a] NAME...` from known input: the first line split on whitespace, the rest to the last name. */
export function readFields(args: readonly string[], text: string): Map<string, string> {
  const names = args.filter((a) => !a.startsWith('-') && /^[A-Za-z_]\w*$/.test(a))
  const line = text.split('\n')[0] ?? ''
  const words = line.trim().split(/\s+/)
  const out = new Map<string, string>()
  const targets = names.length > 0 ? names : ['REPLY']
  targets.forEach((name, i) => out.set(name, i === targets.length - 1 ? words.slice(i).join(' ') : (words[i] ?? '')))
  return out
}
