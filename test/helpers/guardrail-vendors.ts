/**
 * Loopback servers speaking three guardrail vendors' wire formats, answering by keywords in the
 * classified text: a verdict word picks the vendor's flag, and E500 / JUNK / TRUNC / DROP / SLOW pick a
 * failure (HTTP 500, not JSON, cut off, dropped connection, slower than any max_latency in the tests).
 */
import { startVendorServer, type VendorReply, type VendorRequest, type VendorServer } from '../../testing/vendor-server.ts'

export const SLOW_MS = 4000

function failure(text: string, ok: unknown): VendorReply | undefined {
  if (text.includes('E500')) return { json: { error: { message: 'internal error' } }, status: 500 }
  if (text.includes('JUNK')) return { text: '<html>upstream hiccup</html>' }
  if (text.includes('TRUNC')) return { truncated: JSON.stringify(ok), sendBytes: 25 }
  if (text.includes('DROP')) return { drop: true }
  if (text.includes('SLOW')) return { json: ok, delayMs: SLOW_MS }
  return undefined
}

const OMNI = ['harassment', 'hate', 'illicit', 'self-harm', 'sexual', 'sexual/minors', 'violence']

/** OpenAI `/moderations`: VIOLENT → violence, MINOR → sexual/minors, HARASS → harassment. */
export function openaiServer(): Promise<VendorServer> {
  return startVendorServer((req: VendorRequest) => {
    const text = String((req.body as { input?: unknown })?.input ?? '')
    const flags = { violence: text.includes('VIOLENT'), 'sexual/minors': text.includes('MINOR'), harassment: text.includes('HARASS') } as Record<string, boolean>
    const ok = {
      id: 'modr-1',
      model: 'omni-moderation-latest',
      results: [
        {
          flagged: Object.values(flags).some(Boolean),
          categories: Object.fromEntries(OMNI.map((c) => [c, flags[c] ?? false])),
          category_scores: Object.fromEntries(OMNI.map((c) => [c, flags[c] ? 0.93 : 0.001])),
        },
      ],
    }
    return failure(text, ok) ?? { json: ok }
  })
}

/** Llama Guard behind `/chat/completions`: WEAPON → unsafe S9, CRIME → unsafe S2. */
export function llamaGuardServer(): Promise<VendorServer> {
  return startVendorServer((req) => {
    const text = String((req.body as { messages?: { content?: string }[] })?.messages?.[0]?.content ?? '')
    const content = text.includes('WEAPON') ? 'unsafe\nS9' : text.includes('CRIME') ? 'unsafe\nS2' : 'safe'
    const ok = { id: 'chatcmpl-1', object: 'chat.completion', model: 'llama-guard3:8b', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }
    return failure(text, ok) ?? { json: ok }
  })
}

/** Azure `text:analyze`: GORE → Violence 7 (eight levels), MILD → Violence 3. */
export function azureServer(): Promise<VendorServer> {
  return startVendorServer((req) => {
    const text = String((req.body as { text?: unknown })?.text ?? '')
    const violence = text.includes('GORE') ? 7 : text.includes('MILD') ? 3 : 0
    const ok = {
      blocklistsMatch: [],
      categoriesAnalysis: [
        { category: 'Hate', severity: 0 },
        { category: 'SelfHarm', severity: 0 },
        { category: 'Sexual', severity: 0 },
        { category: 'Violence', severity: violence },
      ],
    }
    return failure(text, ok) ?? { json: ok }
  })
}
