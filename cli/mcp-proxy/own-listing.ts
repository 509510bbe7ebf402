/**
 * The relay's own `tools/list`: before the first `tools/call` of a run, unless the client listed the tools
 * already, the relay lists them itself (every page) and has the daemon judge them, so the call is decided on
 * the tool list this server serves now, not on the one an earlier run left in the pin store. Its requests carry
 * ids of the relay's own; their answers never reach the client.
 */
type Message = Record<string, unknown>

const MAX_PAGES = 100
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion'
const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Why the relay could not list the server's tools (the call is then denied). */
export class ListingFailed extends Error {}

export class OwnListing {
  readonly #prefix: string
  readonly #toServer: (line: string) => void
  readonly #judge: (tools: Message[], first: boolean, last: boolean) => Promise<unknown>
  readonly #timeoutMs: number
  readonly #waiting = new Map<string, (answer: Message) => void>()
  #done = false
  #running: Promise<void> | undefined
  #seq = 0

  constructor(
    instance: string,
    ports: { toServer(line: string): void },
    judge: (tools: Message[], first: boolean, last: boolean) => Promise<unknown>,
    timeoutMs: number,
  ) {
    this.#prefix = `svc-mcp-proxy-${instance}-list-`
    this.#toServer = (line) => ports.toServer(line)
    this.#judge = judge
    this.#timeoutMs = timeoutMs
  }

  /** True once a complete list was judged this run. */
  get done(): boolean {
    return this.#done
  }

  /** A complete list was judged this run (the client's own listing counts). */
  listed(): void {
    this.#done = true
  }

  /** Resolves once this run's tool list was judged; `meta` is the call's `_meta` (the 2026-07-28 revision's version). */
  ensure(meta: unknown): Promise<void> {
    // Only the protocol version travels along: a progress token of the call's `_meta` is not the listing's.
    const version = isObject(meta) ? meta[VERSION_KEY] : undefined
    this.#running ??= this.#run(typeof version === 'string' ? { [VERSION_KEY]: version } : undefined).finally(() => {
      this.#running = undefined
    })
    return this.#running
  }

  /** Takes the answer to one of the relay's own requests (true), or leaves the message alone (false). */
  take(message: Message): boolean {
    const resolve = typeof message.id === 'string' ? this.#waiting.get(message.id) : undefined
    if (!resolve) return false
    this.#waiting.delete(message.id as string)
    resolve(message)
    return true
  }

  async #run(meta: Message | undefined): Promise<void> {
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.#request(cursor, meta)
      const result = answer.result
      if (!isObject(result) || !Array.isArray(result.tools)) {
        const why = isObject(answer.error) ? String(answer.error.message).slice(0, 200) : 'no tool list'
        throw new ListingFailed(`the server answered the relay's tools/list with ${why}, so the call cannot be judged on its current tools`)
      }
      const next = typeof result.nextCursor === 'string' ? result.nextCursor : undefined
      await this.#judge(result.tools.filter(isObject), page === 0, next === undefined)
      if (next === undefined) {
        this.#done = true
        return
      }
      cursor = next
    }
    throw new ListingFailed(`the server's tool list has more than ${MAX_PAGES} pages`)
  }

  #request(cursor: string | undefined, meta: Message | undefined): Promise<Message> {
    const id = `${this.#prefix}${++this.#seq}`
    const params = { ...(cursor === undefined ? {} : { cursor }), ...(meta ? { _meta: meta } : {}) }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id)
        reject(new ListingFailed(`the server did not answer the relay's tools/list within ${this.#timeoutMs} ms`))
      }, this.#timeoutMs)
      timer.unref?.()
      this.#waiting.set(id, (answer) => {
        clearTimeout(timer)
        resolve(answer)
      })
      this.#toServer(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params }))
    })
  }
}
