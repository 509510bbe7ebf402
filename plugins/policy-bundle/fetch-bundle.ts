/**
 * One conditional download of the bundle URL: `If-None-Match` with the last ETag, a time limit, and a size
 * limit enforced while reading (a server that lies about Content-Length or never stops is cut off).
 */
import { MAX_BUNDLE_BYTES } from './layout.ts'
import type { BundleSettings } from './managed.ts'

export type FetchOutcome =
  | { readonly kind: 'not_modified' }
  | { readonly kind: 'body'; readonly bytes: Buffer; readonly etag?: string }
  | { readonly kind: 'unreachable'; readonly reason: string }

export async function fetchBundle(settings: BundleSettings, etag: string | undefined): Promise<FetchOutcome> {
  let response: Response
  try {
    response = await fetch(settings.url, {
      headers: { ...settings.headers, accept: 'application/gzip, application/octet-stream', ...(etag ? { 'if-none-match': etag } : {}) },
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: 'follow',
    })
  } catch (err) {
    return { kind: 'unreachable', reason: `GET ${settings.url} failed: ${describe(err)}` }
  }
  if (response.status === 304) return { kind: 'not_modified' }
  if (response.status !== 200) {
    await response.body?.cancel()
    return { kind: 'unreachable', reason: `GET ${settings.url} answered ${response.status}` }
  }
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length
      if (size > MAX_BUNDLE_BYTES) {
        await response.body?.cancel()
        return { kind: 'unreachable', reason: `GET ${settings.url}: bundle larger than ${MAX_BUNDLE_BYTES} bytes` }
      }
      chunks.push(Buffer.from(chunk))
    }
  } catch (err) {
    return { kind: 'unreachable', reason: `GET ${settings.url}: download cut off (${describe(err)})` }
  }
  const tag = response.headers.get('etag') ?? undefined
  return { kind: 'body', bytes: Buffer.concat(chunks), ...(tag ? { etag: tag } : {}) }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { message?: string; code?: string } }).cause
  return cause?.code ?? cause?.message ?? (err as Error).message
}
