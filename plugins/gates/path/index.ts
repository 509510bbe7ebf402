/**
 * `path`: globs over the canonical paths a call touches (file tools' paths and paths found in shell
 * commands). `~` in a pattern means the governed user's home.
 */
import { defineGateKind, homeGlobsFor } from '../../../core/index.ts'

type Value = string | string[]

export default defineGateKind<Value>({
  kind: 'path',
  description: 'Globs (`*` within a segment, `**` across segments, `~` for home) matched against canonical paths the call touches.',
  schema: {
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    ],
  },
  compile(value) {
    // `~` depends on the governed user's home, which the request context carries.
    const globsFor = homeGlobsFor(Array.isArray(value) ? value : [value])
    return function pathMatches(request, ctx) {
      if (request.paths.length === 0) return undefined
      const globs = globsFor(ctx)
      for (const path of request.paths) if (globs.test(path)) return `path ${path}`
      return undefined
    }
  },
  index: () => ({ facets: ['paths'] }),
})
