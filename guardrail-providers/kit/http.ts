/**
 * The HTTP side of a provider call: one JSON POST with the credential in a header, bounded by the
 * evaluator's `max_latency`, refusing redirects (a credential never follows one) and capping the answer.
 * Every failure is a GuardrailFailure naming its abstention kind; no message ever carries the credential.
 */
import { GuardrailFailure, type ProviderConnection } from '../../core/index.ts'

/** Largest answer read from a provider (a moderation answer is a few KiB). */
export const MAX_ANSWER_BYTES = 256 * 1024

/** POSTs `body` as JSON to the connection's `baseUrl + path` and returns the parsed JSON answer. */
export async function postJson({ baseUrl, headers, signal }: ProviderConnection, path: string, body: unknown): Promise<unknown> {
  let res: Response
  try {
    res = await fetch(`${baseUrl.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
      redirect: 'error',
    })
  } catch (err) {
    if (signal.aborted) throw new GuardrailFailure('timeout', 'no answer within max_latency', false)
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    if (/redirect/i.test(cause?.message ?? '')) throw new GuardrailFailure('provider_error', 'provider answered with a redirect, which is refused (a credential never follows one)')
    throw new GuardrailFailure('provider_error', `provider unreachable${cause?.code ? ` (${cause.code})` : ''}`, false)
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {})
    throw new GuardrailFailure('provider_error', `provider answered HTTP ${res.status}`)
  }
  let text: string
  try {
    text = await readCapped(res)
  } catch (err) {
    if (signal.aborted) throw new GuardrailFailure('timeout', 'answer not complete within max_latency', false)
    if (err instanceof GuardrailFailure) throw err
    throw new GuardrailFailure('malformed_answer', 'answer was cut off before its end')
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new GuardrailFailure('malformed_answer', `answer is not JSON (${text.length === 0 ? 'empty' : 'truncated or malformed'})`)
  }
}

async function readCapped(res: Response): Promise<string> {
  const reader = res.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {})
      throw new GuardrailFailure('malformed_answer', `answer is larger than ${MAX_ANSWER_BYTES} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
