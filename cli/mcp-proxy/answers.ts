/**
 * What the client sees when svc denies an MCP request. A denied `tools/call` is a tool result with
 * `isError: true` (MCP tools, "Error Handling": tool execution errors are reported in the result so the model
 * can read them, https://modelcontextprotocol.io/specification/2025-11-25/server/tools); any other denied
 * request is a JSON-RPC error whose code lies outside the range JSON-RPC 2.0 reserves (-32768 to -32000,
 * https://www.jsonrpc.org/specification#error_object), so no client mistakes it for a protocol error.
 */
export const SVC_DENIED_CODE = -31403

export interface Verdict {
  readonly verdict: 'allow' | 'deny'
  readonly ruleId: string
  readonly reason: string
  readonly nudge?: string
}

export function denialText(v: Verdict): string {
  const rule = v.ruleId ? ` (rule ${v.ruleId})` : ''
  return `svc denied this request${rule}: ${v.reason}${v.nudge ? `\n${v.nudge}` : ''}`
}

/** The JSON-RPC response that answers a denied request in the server's stead. */
export function denialResponse(id: unknown, method: string, v: Verdict): Record<string, unknown> {
  const text = denialText(v)
  if (method === 'tools/call') return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
  return { jsonrpc: '2.0', id, error: { code: SVC_DENIED_CODE, message: text, data: { svc: { rule_id: v.ruleId, reason: v.reason, ...(v.nudge ? { nudge: v.nudge } : {}) } } } }
}

/** Reads the daemon's answer to a `call`; anything but a well-formed verdict is a deny. */
export function verdictOf(answer: Record<string, unknown>): Verdict {
  const { verdict, ruleId, reason, nudge } = answer
  if ((verdict !== 'allow' && verdict !== 'deny') || typeof reason !== 'string')
    return { verdict: 'deny', ruleId: '', reason: 'the svc daemon sent an answer svc mcp-proxy cannot read' }
  return { verdict, ruleId: typeof ruleId === 'string' ? ruleId : '', reason, ...(typeof nudge === 'string' ? { nudge } : {}) }
}
