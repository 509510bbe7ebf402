/**
 * `url`: host (glob), scheme and port of the URLs a call reaches (fetch tools' `url` and URLs in commands),
 * after canonicalisation of IP spellings, userinfo and trailing dots. `port` may name `$SVC_PORTS`, the ports
 * the control plane is reachable on in this context.
 */
import { compileGlob, defineGateKind, SVC_PORTS, svcPortsOf } from '../../../core/index.ts'

type Port = number | typeof SVC_PORTS

interface Value {
  host?: string | string[]
  scheme?: string | string[]
  port?: Port | Port[]
}

const stringOrList = {
  oneOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
  ],
}
// A port is a number or the binding itself: any other string (`$SVC_PORT`, `"7878"`) is a load error that says so.
const portBounds = { minimum: 0, maximum: 65535, pattern: `^\\${SVC_PORTS}$` }
const port = { type: ['integer', 'string'], ...portBounds }
const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v])

export default defineGateKind<Value>({
  kind: 'url',
  description: "Matches URLs the call reaches by host glob, scheme and port (all given fields must hold); `port: $SVC_PORTS` means the control plane's ports.",
  schema: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: { host: stringOrList, scheme: stringOrList, port: { type: ['integer', 'string', 'array'], ...portBounds, minItems: 1, items: port } },
  },
  compile(value) {
    const hosts = list(value.host)?.map((h) => compileGlob(h.toLowerCase(), { pathMode: false }))
    const schemes = list(value.scheme)?.map((s) => s.toLowerCase())
    const ports = list(value.port)
    const fixedPorts = ports?.filter((p): p is number => p !== SVC_PORTS)
    const bound = ports?.includes(SVC_PORTS) ?? false
    return function urlMatches(request, ctx) {
      for (const url of request.urls) {
        if (hosts && !hosts.some((h) => h.test(url.host))) continue
        if (schemes && !schemes.includes(url.scheme)) continue
        if (ports && (url.port === undefined || !(fixedPorts!.includes(url.port) || (bound && svcPortsOf(ctx).includes(url.port))))) continue
        return `url ${url.raw}`
      }
      return undefined
    }
  },
  index: () => ({ facets: ['urls'] }),
})
