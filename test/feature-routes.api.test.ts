/**
 * Feature routes (`host.bring(routes(...))`, daemon/surfaces.ts): a plugin's routes get the decorations, the
 * problem+json error contract, operator auth and the OpenAPI document of core routes, and stay encapsulated.
 */
import { afterAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { createEngine, type EnginePlugin } from '../core/index.ts'
import { buildApp, createAuthService, routes, type FeatureRoutes } from '../daemon/index.ts'
import { SHIPPED_POLICIES_DIR, VERSION } from '../cli/paths.ts'
import { allPlugins } from '../cli/plugins.ts'
import { tempDir } from './helpers/daemon.ts'

const echoRoutes: FeatureRoutes = async (app) => {
  // Encapsulated: this hook must not reach core routes.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-feature', 'echo')
    return payload
  })
  app.post<{ Body: { word: string } }>('/v1/echo', {
    schema: {
      summary: 'test feature: echo a word with the daemon mode',
      body: { type: 'object', additionalProperties: false, required: ['word'], properties: { word: { type: 'string', maxLength: 8 } } },
      response: { 200: { type: 'object', required: ['word', 'mode'], properties: { word: { type: 'string' }, mode: { type: 'string' } } } },
    },
    handler: async (request) => ({ word: request.body.word, mode: app.engine.mode() }),
  })
  app.get('/v1/echo/secret', {
    onRequest: app.auth.requireOperator,
    schema: { summary: 'test feature: operator only', security: [{ operator: [] }], response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
    handler: async () => ({ ok: true }),
  })
}
const echo: EnginePlugin = { name: 'feature:echo', apply: (host) => host.bring(routes(echoRoutes)) }

const home = tempDir('svc-feature-routes-')
const log = pino({ level: 'silent' })
const engine = await createEngine({ plugins: [...allPlugins, echo], home, policiesDir: SHIPPED_POLICIES_DIR, log })
const app = await buildApp({ engine, auth: createAuthService(home, {}), version: VERSION, env: {}, logger: log })
await app.ready()
afterAll(async () => {
  await app.close()
  await engine.close()
})

describe('feature routes', () => {
  it('serve with the engine decoration, inside their own encapsulation context', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/echo', payload: { word: 'hi' } })
    expect(res.json()).toEqual({ word: 'hi', mode: engine.mode() })
    expect(res.headers['x-feature']).toBe('echo')
    const core = await app.inject({ method: 'GET', url: '/v1/health' })
    expect(core.statusCode).toBe(200)
    expect(core.headers['x-feature']).toBeUndefined()
  })

  it('answer bad input and missing operator tokens as problem+json, like core routes', async () => {
    const bad = await app.inject({ method: 'POST', url: '/v1/echo', payload: { word: 'far too long', extra: 1 } })
    expect(bad.statusCode).toBe(400)
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/)
    const query = await app.inject({ method: 'POST', url: '/v1/echo?x=1', payload: { word: 'hi' } })
    expect(query.statusCode).toBe(400)
    const secret = await app.inject({ method: 'GET', url: '/v1/echo/secret' })
    expect(secret.statusCode).toBe(401)
    expect(secret.headers['content-type']).toMatch(/application\/problem\+json/)
  })

  it('are documented in the OpenAPI document with the error contract', () => {
    const doc = app.swagger() as unknown as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }
    expect(Object.keys(doc.paths['/v1/echo/secret']!.get!.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '500', '503']))
    expect(Object.keys(doc.paths['/v1/echo']!.post!.responses)).toEqual(expect.arrayContaining(['200', '400', '413', '415']))
  })

  it('a plugin whose routes fail to register closes the ones registered before it (their onClose runs)', async () => {
    let closed = 0
    const polling: EnginePlugin = {
      name: 'feature:polling',
      apply: (host) =>
        host.bring(
          routes(async (child) => {
            child.addHook('onClose', async () => {
              closed++
            })
          }),
        ),
    }
    const broken: EnginePlugin = {
      name: 'feature:broken',
      apply: (host) =>
        host.bring(
          routes(async () => {
            throw new Error('routes of feature:broken could not be registered')
          }),
        ),
    }
    const failing = await createEngine({ plugins: [...allPlugins, polling, broken], home: tempDir('svc-feature-broken-'), policiesDir: SHIPPED_POLICIES_DIR, log })
    try {
      await expect(buildApp({ engine: failing, auth: createAuthService(failing.home, {}), version: VERSION, env: {}, logger: log })).rejects.toThrow(
        /feature:broken could not be registered/,
      )
      expect(closed).toBe(1)
    } finally {
      await failing.close()
    }
  })

  it('are one set per plugin', async () => {
    const twice: EnginePlugin = {
      name: 'feature:twice',
      apply: (host) => {
        host.bring(routes(echoRoutes))
        host.bring(routes(echoRoutes))
      },
    }
    await expect(createEngine({ plugins: [twice], home: tempDir(), policiesDir: SHIPPED_POLICIES_DIR, log })).rejects.toMatchObject({ code: 'PE_PLUGIN_DUPLICATE' })
  })
})
