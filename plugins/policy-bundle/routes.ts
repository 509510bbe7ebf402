/** GET /v1/policy/bundle: the signed policy bundle in force, the last check and the last refusal. */
import type { FastifyInstance } from 'fastify'
import type { BundleService } from './bundle-service.ts'

const check = {
  type: 'object',
  required: ['at', 'outcome'],
  properties: {
    at: { type: 'string' },
    outcome: { type: 'string', enum: ['activated', 'unchanged', 'not_modified', 'refused', 'unreachable'] },
    reason: { type: 'string' },
    revision: { type: 'integer' },
    sha256: { type: 'string' },
  },
} as const

const statusSchema = {
  type: 'object',
  required: ['configured', 'trusted_keys', 'floor', 'checks'],
  properties: {
    configured: { type: 'boolean', description: 'the managed file names a bundle URL and its signing keys' },
    managed_file: { type: 'string' },
    url: { type: 'string' },
    trusted_keys: { type: 'array', items: { type: 'string' }, description: 'key ids of the pinned bundle-signing keys' },
    floor: {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['monitor', 'firewall'] },
        packs: { type: 'object', description: 'Shipped packs locked on by the managed file: `on` (as shipped), `deny` or `monitor`', additionalProperties: { type: 'string', enum: ['on', 'deny', 'monitor'] } },
      },
    },
    active: {
      type: 'object',
      required: ['revision', 'sha256', 'content_hash', 'keyid', 'activated_at', 'expired'],
      properties: {
        revision: { type: 'integer' },
        sha256: { type: 'string', description: 'SHA-256 of the bundle.tar.gz as served' },
        content_hash: { type: 'string', description: 'SHA-256 over the signed file list' },
        keyid: { type: 'string' },
        activated_at: { type: 'string' },
        expires: { type: 'string' },
        expired: { type: 'boolean', description: 'the active bundle is past metadata.expires (it stays in force: svc never loosens on expiry)' },
      },
    },
    last_check: check,
    last_refusal: check,
    checks: { type: 'integer', description: 'downloads attempted since the daemon started' },
  },
} as const

export function bundleRoutes(service: () => BundleService) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/v1/policy/bundle', {
      schema: { summary: 'Signed policy bundle status: active revision, last check, last refusal, managed floor', response: { 200: statusSchema } },
      handler: async () => service().status(),
    })
  }
}
