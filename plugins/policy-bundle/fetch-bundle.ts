/**
 * One conditional download of the bundle URL: `If-None-Match` with the last ETag, a time limit, and a size
 * limit enforced while reading (a server that lies about Content-Length or never stops is cut off). Redirects
 * are followed by hand (at most 5): the managed file's headers (an API key) go only to the origin of the URL it
 * names, never to another origin a redirect names.
 */
import { MAX_BUNDLE_BYTES } from './layout.ts'
import type { BundleSettings } from './managed.ts'

export type FetchOutcome =
  | { readonly kind: 'not_modified' }
  | { readonly kind: 'body'; readonly bytes: Buffer; readonly etag?: string }
  | { readonly kind: 'unreachable'; readonly reason: string }

const MAX_REDIRECTS = 5

export async function fetchBundle(settings: BundleSettings, etag: string | undefined): Promise<FetchOutcome> {
  let response: Response
  const signal = AbortSignal.timeout(settings.timeoutMs)
  const origin = new URL(settings.url).origin
  let url = settings.url
  try {
    for (let hop = 0; ; hop++) {
      const own = new URL(url).origin === origin ? settings.headers : {}
      response = await fetch(url, { headers: { ...own, accept: 'application/gzip, application/octet-stream', ...(etag ? { 'if-none-match': etag } : {}) }, signal, redirect: 'manual' })
      const location = response.headers.get('location')
      if (![301, 302, 303, 307, 308].includes(response.status) || !location) break
      await response.body?.cancel()
      const next = new URL(location, url)
      if (hop >= MAX_REDIRECTS || !/^https?:$/.test(next.protocol)) return { kind: 'unreachable', reason: `GET ${settings.url}: too many redirects, or one to a non-HTTP URL` }
      url = next.href
    }
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
