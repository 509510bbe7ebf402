/**
 * Links a call `svc mcp-proxy` relays to the hook's decision of the same call (a harness with both a hook and
 * the proxy on an MCP server sends it through both): the newest recent allowed decision of another source with
 * the same canonical tool name and payload, not linked yet. Its seq becomes the proxy leaf's `link_seq`, so the
 * ledger shows one call with two enforcement points. The payload hash covers the cwd, and a harness starts
 * its servers in its own cwd, so the proxy's cwd (or none) is tried.
 *
 * The hook decisions come from the `ledgerAppend` hook as they are written, into a small window in memory: a
 * proxy call reads no ledger rows, and nothing here grows with the daemon's uptime.
 */
import { payloadHash, type LedgerEntry } from '../../core/index.ts'

/** The extension family under which the plugin hands its linker to the proxy routes. */
export const PROXY_LINKER = 'mcp-proxy-linker'

/** How far back a hook decision can be (the harness asks its hook, then sends the request to the server). */
const WINDOW_MS = 120_000
/** At most this many recent MCP decisions are kept (a burst beyond it only loses links, never decisions). */
const KEEP = 256

interface Candidate {
  readonly seq: number
  readonly tool: string
  readonly payloadHash: string
  readonly at: number
}

export class ProxyLinker {
  #recent: Candidate[] = []

  /** `ledgerAppend` observer: remembers allowed MCP decisions that reached svc other than through the proxy. */
  observe(entry: LedgerEntry): void {
    if (entry.kind !== 'decision' || entry.source === 'mcp-proxy' || entry.verdict === 'deny' || !entry.tool.startsWith('mcp__')) return
    this.#recent.push({ seq: entry.seq, tool: entry.tool, payloadHash: entry.payloadHash, at: entry.at })
    if (this.#recent.length > KEEP) this.#recent.splice(0, this.#recent.length - KEEP)
  }

  /** The seq of the hook's decision of this call, or undefined; each hook decision links at most one proxy call. */
  find(tool: string, input: Readonly<Record<string, unknown>>, cwd: string | undefined, now = Date.now()): number | undefined {
    this.#recent = this.#recent.filter((c) => now - c.at <= WINDOW_MS)
    const hashes = new Set([payloadHash({ tool, input }), ...(cwd ? [payloadHash({ tool, input, cwd })] : [])])
    for (let i = this.#recent.length - 1; i >= 0; i--) {
      const c = this.#recent[i]!
      if (c.tool !== tool || !hashes.has(c.payloadHash)) continue
      this.#recent.splice(i, 1)
      return c.seq
    }
    return undefined
  }
}
