/**
 * Computes what a simple command prints when that is knowable without running it: `echo`, `printf`,
 * `cat` of a here-doc, and the decoders attackers chain before a shell (`base64 -d`, `xxd -r -p`, `rev`,
 * `tr`). This is what lets `echo cm0gLXJmIH4= | base64 -d | sh` be analysed as `rm -rf ~`.
 */
import { decodeEscapes, renderPrintf } from './escapes.ts'

/** Largest output computed; anything bigger is treated as unknown. */
const MAX_OUTPUT = 64 * 1024

/** Output of `argv` given its stdin, or undefined when it cannot be known. */
export function staticOutput(program: string, argv: readonly string[], stdin: string | undefined): string | undefined {
  const out = compute(program, argv.slice(1), stdin)
  return out !== undefined && out.length <= MAX_OUTPUT ? out : undefined
}

function compute(program: string, args: readonly string[], stdin: string | undefined): string | undefined {
  switch (program) {
    case 'echo':
      return echo(args)
    case 'printf':
      return args[0] === undefined ? undefined : renderPrintf(args[0], args.slice(1))
    case 'cat':
      return args.every((a) => a === '-') ? stdin : undefined
    case 'base64':
    case 'openssl':
      return decodeBase64(program, args, stdin)
    case 'xxd':
      return stdin !== undefined && args.includes('-r') && args.some((a) => a === '-p' || a === '-ps' || a === '-plain') ? hexDecode(stdin) : undefined
    case 'rev':
      return stdin === undefined
        ? undefined
        : stdin
            .split('\n')
            .map((l) => [...l].reverse().join(''))
            .join('\n')
    case 'tr':
      return stdin === undefined ? undefined : translate(args, stdin)
    default:
      return undefined
  }
}

function echo(args: readonly string[]): string {
  let i = 0
  let newline = true
  let escapes = false
  for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
    const flag = args[i]!
    if (flag.includes('n')) newline = false
    if (flag.includes('e')) escapes = true
    if (flag.includes('E')) escapes = false
  }
  const text = args.slice(i).join(' ')
  return (escapes ? decodeEscapes(text, 'echo') : text) + (newline ? '\n' : '')
}

function decodeBase64(program: string, args: readonly string[], stdin: string | undefined): string | undefined {
  if (stdin === undefined) return undefined
  const decoding = args.some((a) => a === '-d' || a === '--decode' || a === '-D' || /^-[a-zA-Z]*d/.test(a))
  if (program === 'openssl' && !(args.includes('base64') || args.includes('-base64') || args.includes('-a'))) return undefined
  if (!decoding) return undefined
  const clean = stdin.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) return undefined
  return Buffer.from(clean, 'base64').toString('utf8')
}

function hexDecode(text: string): string | undefined {
  const clean = text.replace(/\s+/g, '')
  if (!/^([0-9a-fA-F]{2})*$/.test(clean)) return undefined
  return Buffer.from(clean, 'hex').toString('utf8')
}

/** `tr SET1 SET2` and `tr -d SET` with ranges and the escapes tr understands. */
function translate(args: readonly string[], stdin: string): string | undefined {
  const flags = args
    .filter((a) => /^-[a-zA-Z]+$/.test(a))
    .map((a) => a.slice(1))
    .join('')
  const sets = args.filter((a) => !/^-[a-zA-Z]+$/.test(a)).map(expandSet)
  if (sets.some((s) => s === undefined) || flags.replace(/[ds]/g, '') !== '') return undefined
  const [from, to] = sets as string[][]
  if (!from) return undefined
  if (flags.includes('d')) return [...stdin].filter((c) => !from.includes(c)).join('')
  if (!to || to.length === 0) return undefined
  return [...stdin]
    .map((c) => {
      const idx = from.lastIndexOf(c)
      return idx === -1 ? c : to[Math.min(idx, to.length - 1)]
    })
    .join('')
}

function expandSet(set: string): string[] | undefined {
  const named: Record<string, string> = { '[:lower:]': 'a-z', '[:upper:]': 'A-Z', '[:digit:]': '0-9', '[:alpha:]': 'a-zA-Z', '[:alnum:]': 'a-zA-Z0-9', '[:space:]': ' \t\n' }
  const src = decodeEscapes(
    set.replace(/\[:\w+:\]/g, (m) => named[m] ?? m),
    'printf',
  )
  if (/\[:\w+:\]|\[.\*/.test(src)) return undefined
  const chars = [...src]
  const out: string[] = []
  for (let i = 0; i < chars.length; i++) {
    if (chars[i + 1] === '-' && i + 2 < chars.length) {
      const a = chars[i]!.codePointAt(0) as number
      const b = chars[i + 2]!.codePointAt(0) as number
      if (b < a || b - a > 1024) return undefined
      for (let c = a; c <= b; c++) out.push(String.fromCodePoint(c))
      i += 2
    } else out.push(chars[i]!)
  }
  return out
}
