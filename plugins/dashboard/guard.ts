/**
 * What the dashboard answers to browsers other than its own page: nothing. Every request must name this
 * listener in `Host` (a DNS-rebinding page cannot), come from this origin when a browser says where it comes
 * from (`Origin`, `Sec-Fetch-Site`), and never be a CORS preflight. Every answer carries a strict CSP and no
 * `Access-Control-*` header.
 */
import type { FastifyInstance } from 'fastify'
import { ApiProblem } from '../../core/index.ts'
import { browserRefusal, extraAllowedHosts } from '../../daemon/index.ts'

/** The Content-Security-Policy: this origin only; the one inline script (the import map) allowed by its hash. */
export function contentSecurityPolicy(importMapHash: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'sha256-${importMapHash}'`,
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** Installs the Host/Origin check (first onRequest hook) and the security headers on every answer. */
export function installGuard(app: FastifyInstance, env: Readonly<Record<string, string | undefined>>, importMapHash: string): void {
  const extra = extraAllowedHosts(env)
  const csp = contentSecurityPolicy(importMapHash)
  app.addHook('onRequest', async (request) => {
    const reason = browserRefusal(request, extra, 'this dashboard')
    if (reason) throw new ApiProblem(403, 'browser_refused', reason)
  })
  app.addHook('onSend', async (request, reply) => {
    reply.header('content-security-policy', csp)
    reply.header('x-content-type-options', 'nosniff')
    reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('cross-origin-opener-policy', 'same-origin')
    reply.header('cross-origin-resource-policy', 'same-origin')
    reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=(), usb=(), serial=()')
    if (!request.url.startsWith('/vendor/') && !request.url.startsWith('/app/')) reply.header('cache-control', 'no-store')
  })
}
