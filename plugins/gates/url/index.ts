/**
 * `url`: host (glob) and scheme of the URLs a call reaches (fetch tools' `url` and URLs in commands),
 * after canonicalisation of IP spellings, userinfo and trailing dots.
 */
import { compileGlob, defineGateKind } from '../../../core/index.ts'

interface Value {
  host?: string | string[]
  scheme?: string | string[]
  port?: number | number[]
}

const stringOrList = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } }] }
const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v])

export default defineGateKind<Value>({
  kind: 'url',
  description: 'Matches URLs the call reaches by host glob, scheme and port (all given fields must hold).',
  schema: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: { host: stringOrList, scheme: stringOrList, port: { oneOf: [{ type: 'integer' }, { type: 'array', items: { type: 'integer' } }] } },
  },
  compile(value) {
    const hosts = list(value.host)?.map((h) => compileGlob(h.toLowerCase(), { pathMode: false }))
    const schemes = list(value.scheme)?.map((s) => s.toLowerCase())
    const ports = list(value.port)
    return function urlMatches(request) {
      for (const url of request.urls) {
        if (hosts && !hosts.some((h) => h.test(url.host))) continue
        if (schemes && !schemes.includes(url.scheme)) continue
        if (ports && (url.port === undefined || !ports.includes(url.port))) continue
        return `url ${url.raw}`
      }
      return undefined
    }
  },
})
