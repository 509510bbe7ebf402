/**
 * Links a call `svc mcp-proxy` relays to the hook's decision of the same call (a harness with both a hook and
 * the proxy on an MCP server sends it through both): the newest recent decision leaf of another source with the
 * same canonical tool name and payload, not linked yet. Its seq becomes the proxy leaf's `link_seq`, so the
 * ledger shows one call with two enforcement points. The payload hash covers the cwd, and a harness starts
 * its servers in its own cwd, so the proxy's cwd (or none) is tried.
 */
import { payloadHash, type Engine } from '../../core/index.ts'

/** How far back a hook decision can be (the harness asks its hook, then sends the request to the server). */
const WINDOW_MS = 120_000
const SCAN = 256

export class ProxyLinker {
  readonly #engine: Engine
  readonly #linked = new Set<number>()

  constructor(engine: Engine) {
    this.#engine = engine
  }

  /** The seq of the hook's decision of this call, or undefined; each hook decision links at most one proxy call. */
  find(tool: string, input: Readonly<Record<string, unknown>>, cwd: string | undefined, now = Date.now()): number | undefined {
    const { ledger } = this.#engine
    const hashes = new Set([payloadHash({ tool, input }), ...(cwd ? [payloadHash({ tool, input, cwd })] : [])])
    const size = ledger.size()
    for (let seq = size - 1; seq >= Math.max(0, size - SCAN); seq--) {
      const leaf = ledger.leaf(seq)?.leaf
      if (!leaf || leaf.type !== 'decision') continue
      if (now - leaf.ts_ms > WINDOW_MS) return undefined
      if (leaf.source === 'mcp-proxy' || leaf.tool !== tool || leaf.verdict === 'deny' || this.#linked.has(seq)) continue
      if (!hashes.has(leaf.payload_hash)) continue
      this.#linked.add(seq)
      return seq
    }
    return undefined
  }
}
