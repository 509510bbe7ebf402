/**
 * The daemon's JSON body parser: Fastify's (secure-json-parse: `__proto__` and `constructor.prototype`
 * keys refused) plus one rule JSON.parse cannot keep: a key twice in one object is refused. JSON.parse
 * silently keeps the last value while other parsers keep the first or fail, so an ambiguous body could mean
 * one call to svc and another to whoever else reads it.
 */
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { ApiProblem } from '../../core/errors.ts'

/** The first key that occurs twice in one object of valid JSON `text`, or undefined. Linear, iterative. */
export function duplicateKey(text: string): string | undefined {
  // Per open container: the keys seen so far (objects) or null (arrays), and whether a key comes next.
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x7b /* { */) stack.push({ keys: new Set(), expectKey: true })
    else if (c === 0x5b /* [ */) stack.push({ keys: null, expectKey: false })
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop()
    else if (c === 0x2c /* , */) {
      const top = stack.at(-1)
      if (top?.keys) top.expectKey = true
    } else if (c === 0x22 /* " */) {
      const start = i
      let escaped = false
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c /* \ */) {
          escaped = true
          i++
        } else if (d === 0x22) break
      }
      const top = stack.at(-1)
      if (top?.keys && top.expectKey) {
        const raw = text.slice(start, i + 1)
        const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1)
        if (top.keys.has(key)) return key
        top.keys.add(key)
        top.expectKey = false
      }
    }
  }
  return undefined
}

/** Replaces the application/json parser of `app` (route body limits still apply before it runs). */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.length === 0) return done(new ApiProblem(400, 'invalid_request', 'request body is empty; a JSON object is required'), undefined)
    let value: unknown
    try {
      value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
    } catch (err) {
      return done(new ApiProblem(400, 'invalid_request', `request body is not valid JSON: ${(err as Error).message}`), undefined)
    }
    const twice = duplicateKey(text)
    if (twice !== undefined)
      return done(new ApiProblem(400, 'invalid_request', `request body is ambiguous JSON: key "${twice.toWellFormed()}" appears twice in one object`), undefined)
    done(null, value)
  })
}
