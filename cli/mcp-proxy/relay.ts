/**
 * The message logic of `svc mcp-proxy`: newline-delimited JSON-RPC between the client (the harness, our stdin)
 * and the real server (the child's stdout), as the MCP stdio transport frames it
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio).
 *
 * Nothing passes undecided: every line is parsed, and only what the relay can name is forwarded.
 * - A client line that is not JSON, or not a JSON-RPC object, is answered with a JSON-RPC error and never reaches
 *   the server (a lenient server would run what the relay could not read). A gated request without a usable id
 *   (a `tools/call` sent as a notification) is refused the same way; so is a request whose id is still in flight.
 * - The server answers each forwarded request once: a second answer to an id, or an answer to an id the client
 *   never asked, is dropped. A batch from the server is taken apart and each member decided on its own.
 * - `tools/call`, `resources/read`, `prompts/get` wait for the daemon's verdict (denied ones never reach the
 *   server; the client gets the denial in the server's stead). The first `tools/call` of a run is judged on the
 *   tool list the relay itself just fetched and filtered, never on an earlier run's.
 * - `tools/list` results wait until each tool's pin state is known; tools that are not pinned are left out of the
 *   page (`nextCursor` kept, https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
 * - `notifications/tools/list_changed` is coalesced: one daemon call at a time per relay, and the client gets one
 *   notification per round however many the server sent (a flood cannot slow the daemon for other servers).
 * Everything else, including both revisions' discovery (`initialize`/`notifications/initialized` of 2025-11-25,
 * `server/discover` and per-request `_meta` versions of 2026-07-28), passes through byte for byte.
 *
 * Every message but the gated requests (which the ledger holds) is recorded with method, id, direction and size
 * (the `record` port, traffic-log.ts); what the relay drops is recorded with why, and said on stderr.
 *
 * A request cancelled (`notifications/cancelled`, https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation)
 * while its verdict is pending is dropped: the server never sees it, and the client expects no answer.
 */
import { denialResponse, verdictOf, type Verdict } from './answers.ts'
import { ListingFailed, OwnListing } from './own-listing.ts'

/** The shortest gap between two list_changed rounds of one server (a flood costs the daemon a few calls). */
const LIST_CHANGED_GAP_MS = 250

export const GATED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get'])

export interface RelayPorts {
  toClient(line: string): void
  toServer(line: string): void
  /** Asks the daemon; rejects when it cannot answer (the relay then denies or hides). */
  ask(event: 'call' | 'outcome' | 'tools' | 'list-changed', body: Record<string, unknown>): Promise<Record<string, unknown>>
  warn(message: string): void
  /** Records a message relayed without a verdict, or dropped (`refused` says why); must not block or throw. */
  record?(from: 'client' | 'server', line: string, message: Record<string, unknown> | undefined, refused?: string): void
}

type Message = Record<string, unknown>

interface Forwarded {
  readonly method: string
  readonly params: Message
  readonly requestId: string
}

const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v)
const validId = (id: unknown): id is string | number => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))

export class Relay {
  readonly #ports: RelayPorts
  readonly #server: string
  /** Client requests waiting for a verdict, by id key; `cancelled` once the client gave up on one. */
  readonly #pending = new Map<string, { cancelled: boolean }>()
  /** Client requests the server has and has not answered yet, by id key: the only answers that pass. */
  readonly #forwarded = new Map<string, Forwarded>()
  readonly #listing: OwnListing
  /** list_changed: a daemon call in flight, and whether more came meanwhile. */
  #staleRound: { again: boolean } | undefined
  #lastRound = 0
  #seq = 0
  readonly #instance = `${process.pid}-${Date.now().toString(36)}`

  constructor(server: string, ports: RelayPorts, listTimeoutMs = 10_000) {
    this.#server = server
    this.#ports = ports
    this.#listing = new OwnListing(this.#instance, ports, (tools, first, last) => this.#judgeTools(tools, first, last), listTimeoutMs)
  }

  /** One line from the client. */
  fromClient(line: string): void {
    const parsed = parse(line)
    if (Array.isArray(parsed) && parsed.length > 0) {
      // A JSON-RPC batch (2025-03-26 only): each member is handled as its own message.
      for (const m of parsed) this.fromClient(JSON.stringify(m))
      return
    }
    if (!isObject(parsed)) return this.#refuseClient(line, undefined, parsed === undefined ? -32700 : -32600, parsed === undefined ? 'the line is not JSON' : 'the line is not a JSON-RPC object')
    const { method, id } = parsed
    const gated = typeof method === 'string' && GATED_METHODS.has(method)
    if (typeof method === 'string' && id !== undefined && !validId(id)) return this.#refuseClient(line, parsed, -32600, 'a request id must be a string or a finite number')
    if (gated && id === undefined) return this.#refuseClient(line, parsed, undefined, `"${method}" without an id (a notification) is not a request svc can decide`)
    if (typeof method === 'string' && id !== undefined && (this.#forwarded.has(idKey(id)) || this.#pending.has(idKey(id))))
      return this.#refuseClient(line, parsed, -32600, `request id ${JSON.stringify(id)} is still in flight`)
    if (!gated) this.#ports.record?.('client', line, parsed)
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
    if (!gated) {
      this.#forwarded.set(key, { method, params, requestId })
      return this.#ports.toServer(line)
    }
    const waiting = { cancelled: false }
    this.#pending.set(key, waiting)
    const ask = () => this.#ports.ask('call', { method, params, request_id: requestId })
    const asked = method === 'tools/call' && !this.#listing.done ? this.#listing.ensure(params._meta).then(ask) : ask()
    asked
      .then(verdictOf, (err: Error): Verdict => {
        if (err instanceof ListingFailed) return { verdict: 'deny', ruleId: '', reason: `${err.message}; the call was refused (fail-closed)` }
        return { verdict: 'deny', ruleId: '', reason: `${err.message}; the request was refused (fail-closed). Start the svc daemon (\`svc daemon\`) and retry` }
      })
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
    if (Array.isArray(parsed)) {
      // The relay sends the server single messages only; a batch back is taken apart and each member decided.
      this.#ports.record?.('server', line, undefined, 'a batch, taken apart')
      for (const m of parsed) this.fromServer(JSON.stringify(m))
      return
    }
    if (!isObject(parsed)) return this.#drop(line, undefined, 'the line is not a JSON-RPC object')
    if (parsed.method === 'notifications/tools/list_changed') {
      this.#ports.record?.('server', line, parsed)
      return this.#listChanged(line)
    }
    const isResponse = parsed.method === undefined && ('result' in parsed || 'error' in parsed)
    if (!isResponse) {
      this.#ports.record?.('server', line, parsed)
      return this.#ports.toClient(line)
    }
    if (this.#listing.take(parsed)) return
    const key = idKey(parsed.id)
    const sent = this.#forwarded.get(key)
    if (!sent) return this.#drop(line, parsed, `an answer to id ${JSON.stringify(parsed.id)?.slice(0, 64)}, which no request in flight has (unsolicited, or a second answer)`)
    this.#forwarded.delete(key)
    this.#ports.record?.('server', line, parsed)
    if (sent.method === 'tools/list' && isObject(parsed.result) && Array.isArray(parsed.result.tools)) return this.#pinPage(parsed, parsed.result, sent)
    if (GATED_METHODS.has(sent.method)) {
      this.#ports.toClient(line)
      const failed = 'error' in parsed || (isObject(parsed.result) && parsed.result.isError === true)
      this.#ports.ask('outcome', { method: sent.method, params: sent.params, request_id: sent.requestId, outcome: failed ? 'tool_errored' : 'ran' }).catch(() => undefined)
      return
    }
    this.#ports.toClient(line)
  }

  /** A line the reader refused for its length (main.ts): recorded and said, never passed. */
  overlong(from: 'client' | 'server', bytes: number): void {
    const why = `a line of more than ${bytes} bytes`
    this.#ports.record?.(from, '', undefined, why)
    this.#ports.warn(`dropped ${why} from the ${from}`)
  }

  #refuseClient(line: string, parsed: Message | undefined, code: number | undefined, why: string): void {
    this.#ports.record?.('client', line, parsed, why)
    this.#ports.warn(`refused a client message: ${why}; it was not passed to "${this.#server}"`)
    if (code !== undefined) {
      const id = parsed && validId(parsed.id) ? parsed.id : null
      this.#ports.toClient(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: `svc mcp-proxy refused the message: ${why}` } }))
    }
  }

  #drop(line: string, parsed: Message | undefined, why: string): void {
    this.#ports.record?.('server', line, parsed, why)
    this.#ports.warn(`dropped a message from "${this.#server}": ${why}`)
  }

  /** Coalesces list_changed: one daemon call at a time, at most one per LIST_CHANGED_GAP_MS; the client hears once per round. */
  #listChanged(line: string): void {
    if (this.#staleRound) {
      this.#staleRound.again = true
      return
    }
    const round = { again: false }
    this.#staleRound = round
    const wait = Math.max(0, this.#lastRound + LIST_CHANGED_GAP_MS - Date.now())
    new Promise((r) => setTimeout(r, wait))
      .then(() => this.#ports.ask('list-changed', {}))
      .catch((err: Error) => {
        this.#ports.warn(`could not mark the tool list of "${this.#server}" stale (${err.message}); its calls are denied until the daemon answers`)
      })
      .then(() => {
        this.#lastRound = Date.now()
        this.#staleRound = undefined
        this.#ports.toClient(line)
        if (round.again) this.#listChanged(line)
      })
  }

  /** Asks the daemon for the pin state of one page; resolves the tools the client may see. */
  #judgeTools(tools: Message[], first: boolean, last: boolean): Promise<Message[]> {
    return this.#ports.ask('tools', { tools, first, last }).then(
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
  }

  /** A `tools/list` page: the daemon pins what it sees; the client sees only the pinned tools. */
  #pinPage(message: Message, result: Message, sent: Forwarded): void {
    const tools = (result.tools as unknown[]).filter(isObject)
    const first = sent.params.cursor === undefined
    const last = typeof result.nextCursor !== 'string'
    this.#judgeTools(tools, first, last).then((shown) => {
      if (last) this.#listing.listed()
      this.#ports.toClient(JSON.stringify({ ...message, result: { ...result, tools: shown } }))
    })
  }
}

export function parse(line: string): unknown {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

/** Ids are strings or numbers; `1` and `"1"` are different requests. */
export function idKey(id: unknown): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`
}
