/**
 * `jsonpath`: a JSONPath (jsonpath-plus, script evaluation off) into the tool input, matching when a
 * value exists, equals a value, or matches an RE2 regex.
 */
import { isDeepStrictEqual } from 'node:util'
import { JSONPath } from 'jsonpath-plus'
import { compileSafeRegex, defineGateKind } from '../../../core/index.ts'

interface Value {
  path: string
  equals?: unknown
  matches?: string
  exists?: boolean
}

export default defineGateKind<Value>({
  kind: 'jsonpath',
  description: 'JSONPath into the tool input; holds when a selected value equals `equals`, matches the RE2 regex `matches`, or (with `exists`) is present.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['path'],
    properties: { path: { type: 'string', pattern: '^\\$' }, equals: {}, matches: { type: 'string', minLength: 1 }, exists: { type: 'boolean' } },
  },
  compile(value) {
    if (value.equals === undefined && value.matches === undefined && value.exists === undefined) {
      throw new Error('needs one of `equals`, `matches` or `exists`')
    }
    // Filter scripts would run through vm: policies are data, so script evaluation stays off.
    if (/[?(]\s*[@(]/.test(value.path)) throw new Error(`filter and script expressions are not allowed in "${value.path}"`)
    const regex = value.matches === undefined ? undefined : compileSafeRegex(value.matches)
    const select = selector(value.path)
    return function jsonpathMatches(request) {
      const found = select(request.input)
      if (value.exists !== undefined) return found.length > 0 === value.exists ? `${value.path} ${value.exists ? 'present' : 'absent'}` : undefined
      const hit = found.find((v) => (regex ? typeof v === 'string' && regex.test(v) : isDeepStrictEqual(v, value.equals)))
      return hit === undefined ? undefined : `${value.path} = ${JSON.stringify(hit)}`
    }
  },
})

/** `$.name`: one member of the input, which most policies ask for (selected without parsing the path on every call). */
const MEMBER = /^\$\.([A-Za-z_][A-Za-z0-9_]*)$/

/** The values `path` selects in a tool input: as jsonpath-plus selects them (an own member, for `$.name`). */
export function selector(path: string): (input: Readonly<Record<string, unknown>>) => unknown[] {
  const member = MEMBER.exec(path)?.[1]
  if (member !== undefined) return (input) => (Object.hasOwn(input, member) ? [input[member]] : [])
  return (input) => JSONPath({ path, json: input as object, eval: false, wrap: true }) as unknown[]
}
