/**
 * The message logic of `svc mcp-proxy`: newline-delimited JSON-RPC between the client (the harness, our stdin)
 * and the real server (the child's stdout), as the MCP stdio transport frames it
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio).
 *
 * Every message is handled on its own: one waiting for the daemon never pauses the others, and a message is
 * written as soon as it may be (so only held messages change place, and only behind later ones). Held are:
 * - `tools/call`, `resources/read`, `prompts/get` requests until the daemon's verdict (denied ones never reach
 *   the server; the client gets the denial in the server's stead);
 * - `tools/list` results until each tool's pin state is known; tools that are not pinned are left out of the
 *   page (`nextCursor` kept, so pagination, https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination, still works);
 * - `notifications/tools/list_changed` until the daemon has marked the list stale.
 * Everything else, including both revisions' discovery (`initialize`/`notifications/initialized` of 2025-11-25,
 * `server/discover` and per-request `_meta` versions of 2026-07-28), passes through byte for byte.
 *
 * Every message but the gated requests (which the ledger holds) is recorded: method, id, direction and size
 * (the `record` port, traffic-log.ts), never waited for.
 *
 * A request cancelled (`notifications/cancelled`, https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation)
 * while its verdict is pending is dropped: the server never sees it, and the client expects no answer.
 */
import { denialResponse, verdictOf, type Verdict } from './answers.ts'

export const GATED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get'])

export interface RelayPorts {
  toClient(line: string): void
  toServer(line: string): void
  /** Asks the daemon; rejects when it cannot answer (the relay then denies or hides). */
  ask(event: 'call' | 'outcome' | 'tools' | 'list-changed', body: Record<string, unknown>): Promise<Record<string, unknown>>
  warn(message: string): void
  /** Records a message relayed without a verdict (traffic-log.ts); must not block or throw. */
  record?(from: 'client' | 'server', line: string, message: Record<string, unknown> | undefined): void
}

type Message = Record<string, unknown>

interface Forwarded {
  readonly method: string
  readonly params: Message
  readonly requestId: string
}

const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v)

export class Relay {
  readonly #ports: RelayPorts
  readonly #server: string
  /** Client requests waiting for a verdict, by id key; `cancelled` once the client gave up on one. */
  readonly #pending = new Map<string, { cancelled: boolean }>()
  /** Client requests the server has, whose answers the relay reads (gated ones, tools/list). */
  readonly #forwarded = new Map<string, Forwarded>()
  #seq = 0
  readonly #instance = `${process.pid}-${Date.now().toString(36)}`

  constructor(server: string, ports: RelayPorts) {
    this.#server = server
    this.#ports = ports
  }

  /** One line from the client. */
  fromClient(line: string): void {
    const parsed = parse(line)
    if (Array.isArray(parsed)) {
      // A JSON-RPC batch (2025-03-26 only): each member is handled as its own message.
      for (const m of parsed) this.fromClient(JSON.stringify(m))
      return
    }
    const { method, id } = isObject(parsed) ? parsed : {}
    if (!(typeof method === 'string' && GATED_METHODS.has(method) && id !== undefined)) this.#ports.record?.('client', line, isObject(parsed) ? parsed : undefined)
    if (!isObject(parsed)) return this.#ports.toServer(line)
    if (method === 'notifications/cancelled' && isObject(parsed.params)) {
      const waiting = this.#pending.get(idKey(parsed.params.requestId))
      if (waiting) {
        waiting.cancelled = true
        return
      }
      return this.#ports.toServer(line)
    }
    if (typeof method !== 'string' || id === undefined) return this.#ports.toServer(line)
    const params = isObject(parsed.params) ? parsed.params : {}
    const key = idKey(id)
    const requestId = `${this.#instance}-${++this.#seq}`
    if (method === 'tools/list') {
      this.#forwarded.set(key, { method, params, requestId })
      return this.#ports.toServer(line)
    }
    if (!GATED_METHODS.has(method)) return this.#ports.toServer(line)
    const waiting = { cancelled: false }
    this.#pending.set(key, waiting)
    this.#ports
      .ask('call', { method, params, request_id: requestId })
      .then(
        verdictOf,
        (err: Error) =>
          ({ verdict: 'deny', ruleId: '', reason: `${err.message}; the request was refused (fail-closed). Start the svc daemon (\`svc daemon\`) and retry` }) as Verdict,
      )
      .then((verdict) => {
        this.#pending.delete(key)
        if (waiting.cancelled) return
        if (verdict.verdict === 'deny') return this.#ports.toClient(JSON.stringify(denialResponse(id, method, verdict)))
        this.#forwarded.set(key, { method, params, requestId })
        this.#ports.toServer(line)
      })
  }

  /** One line from the server. */
  fromServer(line: string): void {
    const parsed = parse(line)
    this.#ports.record?.('server', line, isObject(parsed) ? parsed : undefined)
    if (!isObject(parsed)) return this.#ports.toClient(line)
    if (parsed.method === 'notifications/tools/list_changed') {
      const pass = () => this.#ports.toClient(line)
      this.#ports.ask('list-changed', {}).then(pass, (err: Error) => {
        this.#ports.warn(`could not mark the tool list of "${this.#server}" stale (${err.message}); its calls are denied until the daemon answers`)
        pass()
      })
      return
    }
    const isResponse = parsed.method === undefined && parsed.id !== undefined && ('result' in parsed || 'error' in parsed)
    const sent = isResponse ? this.#forwarded.get(idKey(parsed.id)) : undefined
    if (!sent) return this.#ports.toClient(line)
    this.#forwarded.delete(idKey(parsed.id))
    if (sent.method === 'tools/list' && isObject(parsed.result) && Array.isArray(parsed.result.tools)) return this.#pinPage(parsed, parsed.result, sent)
    if (GATED_METHODS.has(sent.method)) {
      this.#ports.toClient(line)
      const failed = 'error' in parsed || (isObject(parsed.result) && parsed.result.isError === true)
      this.#ports.ask('outcome', { method: sent.method, params: sent.params, request_id: sent.requestId, outcome: failed ? 'tool_errored' : 'ran' }).catch(() => undefined)
      return
    }
    this.#ports.toClient(line)
  }

  /** A `tools/list` page: the daemon pins what it sees; the client sees only the pinned tools. */
  #pinPage(message: Message, result: Message, sent: Forwarded): void {
    const tools = (result.tools as unknown[]).filter(isObject)
    const first = sent.params.cursor === undefined
    const last = typeof result.nextCursor !== 'string'
    this.#ports
      .ask('tools', { tools, first, last })
      .then(
        (answer) => {
          const states = new Map<string, { state: string; why: string }>()
          for (const t of Array.isArray(answer.tools) ? answer.tools : [])
            if (isObject(t) && typeof t.name === 'string') states.set(t.name, { state: String(t.state), why: String(t.why) })
          const hidden = tools.filter((t) => states.get(String(t.name))?.state !== 'pinned')
          if (hidden.length) {
            const list = hidden.map((t) => `${String(t.name)} (${states.get(String(t.name))?.why ?? 'no pin state'})`).join('; ')
            this.#ports.warn(
              `${hidden.length} tool(s) of "${this.#server}" are hidden until an operator pins them (\`svc mcp list\`, \`svc mcp pin accept ${this.#server}\`): ${list}`,
            )
          }
          return tools.filter((t) => states.get(String(t.name))?.state === 'pinned')
        },
        (err: Error) => {
          this.#ports.warn(`could not check the tools of "${this.#server}" (${err.message}); none are shown (fail-closed)`)
          return []
        },
      )
      .then((shown) => this.#ports.toClient(JSON.stringify({ ...message, result: { ...result, tools: shown } })))
  }
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

/** Ids are strings or numbers; `1` and `"1"` are different requests. */
function idKey(id: unknown): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`
}
