/**
 * `tool`: the tool name, exactly, by glob (`mcp__github__*`), `*` for every tool, or a list of these.
 */
import { compileGlob, defineGateKind, isLiteralGlob } from '../../../core/index.ts'

type Value = string | string[]

export default defineGateKind<Value>({
  kind: 'tool',
  description: 'Matches the tool name: exact, glob (`*`, `?`, `{a,b}`), `*` for every tool, or a list.',
  schema: {
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    ],
  },
  compile(value) {
    const globs = (Array.isArray(value) ? value : [value]).map((p) => compileGlob(p, { pathMode: false }))
    return function toolMatches(request) {
      const hit = globs.find((g) => g.test(request.tool))
      return hit ? `tool ${request.tool}` : undefined
    }
  },
  index(value) {
    const names = Array.isArray(value) ? value : [value]
    return names.every(isLiteralGlob) ? { tools: names } : undefined
  },
})
