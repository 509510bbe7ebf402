/**
 * Parameter-expansion operators on a known value (`${X^^}`, `${X:1:2}`, `${X#pat}`, `${X//a/b}`) and the keys
 * arrays are stored under. Pure functions of their inputs; anything not statically computable is undefined.
 */
import type { SyntaxNode } from './parser.ts'

/** Longest value `${X#pattern}`-style operators are applied to (they are quadratic in the value). */
const MAX_AFFIX_VALUE = 1024

/**
 * The variable key of an array subscript: `a[@]`, `a[*]`, `a[0]` (arrays assigned earlier in the command
 * are stored element-wise under these keys, next to `a` holding the first element, as bash's `$a` does).
 */
export function arrayKey(subscript: SyntaxNode): string | undefined {
  const name = subscript.childForFieldName('name')?.text
  const index = subscript.childForFieldName('index')?.text
  if (name === undefined || index === undefined) return undefined
  if (index === '@' || index === '*') return `${name}[@]`
  return /^\d+$/.test(index) ? `${name}[${Number(index)}]` : undefined
}

/** The value of `${X<op>...}` for a known X, or undefined when the operator or its operand is not static. */
export function transform(value: string, op: string, ops: SyntaxNode[], operand: SyntaxNode[], operandText: () => string | undefined): string | undefined {
  switch (op) {
    case '^^':
      return value.toUpperCase()
    case ',,':
      return value.toLowerCase()
    case '^':
      return value.slice(0, 1).toUpperCase() + value.slice(1)
    case ',':
      return value.slice(0, 1).toLowerCase() + value.slice(1)
    case ':': {
      const nums = operand.filter((n) => n.type === 'number').map((n) => Number.parseInt(n.text, 10))
      if (nums.length === 0 || nums.some(Number.isNaN)) return undefined
      const [offset = 0, length] = nums
      const start = offset < 0 ? Math.max(0, value.length + offset) : offset
      return length !== undefined ? value.slice(start, start + length) : value.slice(start)
    }
    case '#':
    case '##':
    case '%':
    case '%%': {
      const pattern = operandText()
      if (pattern === undefined || value.length > MAX_AFFIX_VALUE || pattern.length > 256) return undefined
      return removeAffix(value, pattern, op)
    }
    case '/':
    case '//': {
      const pattern =
        operand.length > 0 && ops[1]
          ? operand
              .filter((n) => n.endIndex <= (ops[1]?.startIndex ?? 0))
              .map((n) => n.text)
              .join('')
          : operandText()
      const replacement = ops[1]
        ? operand
            .filter((n) => n.startIndex >= (ops[1]?.endIndex ?? 0))
            .map((n) => n.text)
            .join('')
        : ''
      if (pattern === undefined || /[*?[]/.test(pattern)) return undefined
      return op === '//' ? value.split(pattern).join(replacement) : value.replace(pattern, replacement)
    }
    default:
      return undefined
  }
}

function removeAffix(value: string, pattern: string, op: string): string {
  const re = globToRegExpSource(pattern)
  const candidates: string[] = []
  for (let i = 0; i <= value.length; i++) candidates.push(op.startsWith('#') ? value.slice(0, i) : value.slice(value.length - i))
  const matcher = new RegExp(`^${re}$`, 's')
  const hits = candidates.filter((c) => matcher.test(c))
  if (hits.length === 0) return value
  const chosen = (op.length === 2 ? hits[hits.length - 1] : hits[0]) ?? ''
  return op.startsWith('#') ? value.slice(chosen.length) : value.slice(0, value.length - chosen.length)
}

function globToRegExpSource(glob: string): string {
  return glob
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
}
