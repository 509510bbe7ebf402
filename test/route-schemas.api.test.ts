/**
 * Route schemas compile on first use (daemon/server/lazy-schemas.ts): validation and serialization behave as
 * Fastify's eager compilers do, every shipped schema compiles, and a broken one fails loudly: here, and as a
 * 500 problem on the first request that needs it, never as a request let through unchecked.
 */
import { afterAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { createEngine, type EnginePlugin } from '../core/index.ts'
import { buildApp, createAuthService, routes, type FeatureRoutes } from '../daemon/index.ts'
import { compileAllSchemas, routeSchemas } from '../daemon/server/lazy-schemas.ts'
import { newAjv } from '../core/lazy-ajv.ts'
import { SHIPPED_POLICIES_DIR, VERSION } from '../cli/paths.ts'
import { allPlugins } from '../cli/plugins.ts'
import { tempDir } from './helpers/daemon.ts'

const log = pino({ level: 'silent' })

async function appWith(plugins: readonly EnginePlugin[]) {
  const home = tempDir('svc-route-schemas-')
  const engine = await createEngine({ plugins, home, policiesDir: SHIPPED_POLICIES_DIR, log })
  const app = await buildApp({ engine, auth: createAuthService(home, {}), version: VERSION, env: {}, logger: log })
  await app.ready()
  afterAll(async () => {
    await app.close()
    await engine.close()
  })
  return { app, engine }
}

describe('route schemas compiled on first use', () => {
  it('validate and serialize like eager ones, and every shipped schema compiles', async () => {
    const { app, engine } = await appWith(allPlugins)
    const bad = await app.inject({ method: 'POST', url: '/v1/gates/check', payload: { tool: 'Bash', input: {}, extra: true } })
    expect(bad.statusCode).toBe(400)
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/)
    expect(bad.json().detail).toMatch(/extra|additional|session_id|required/i)
    const typed = await app.inject({ method: 'POST', url: '/v1/gates/check', payload: { session_id: 7, tool: 'Bash', input: { command: 'ls' } } })
    expect(typed.statusCode).toBe(400)
    const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
    const ok = await app.inject({
      method: 'POST',
      url: '/v1/gates/check',
      payload: { session_id: session.id, source: 'claude-code', tool: 'Bash', input: { command: 'git status' }, cwd: '/tmp' },
    })
    expect(ok.statusCode, ok.body).toBe(200)
    expect(['allow', 'deny']).toContain(ok.json().verdict)
    // Serialized through its (lazily compiled) response schema: the handler returns the engine's whole result,
    // with the decision and the analysed request in it; only the documented fields leave.
    const whole = await engine.check({ sessionId: session.id, source: 'claude-code', tool: 'Bash', input: { command: 'git status' }, cwd: '/tmp' })
    expect(Object.keys(whole)).toEqual(expect.arrayContaining(['decision', 'request']))
    expect(ok.json()).not.toHaveProperty('decision')
    expect(ok.json()).not.toHaveProperty('request')
    const documented = ['ledger_seq', 'nudge', 'reason', 'rule_id', 'verdict']
    expect(Object.keys(ok.json()).filter((k) => !documented.includes(k))).toEqual([])
    expect(ok.json()).toMatchObject({ ledger_seq: expect.any(Number), reason: expect.any(String), rule_id: expect.any(String) })

    const compiled = compileAllSchemas(app)
    expect(compiled).toBeGreaterThan(100) // every route's request and response schemas not used above
    expect(compileAllSchemas(app)).toBe(0)
  })

  it('every route schema and shared schema is valid JSON Schema (the daemon skips the meta-schema check at start)', async () => {
    const { app } = await appWith(allPlugins)
    const ajv = newAjv({ validateSchema: true })
    const schemas = [...routeSchemas(app), ...(Object.values(app.getSchemas()) as object[])]
    expect(schemas.length).toBeGreaterThan(100)
    const invalid = schemas.filter((schema) => !ajv.validateSchema(schema)).map((schema) => `${JSON.stringify(schema).slice(0, 120)}: ${ajv.errorsText()}`)
    expect(invalid).toEqual([])
    // The check itself finds a broken one.
    expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'no-such-type' } } })).toBe(false)
  })

  it('a schema that does not compile fails the first request that needs it as a 500 problem, and fails compileAllSchemas', async () => {
    const broken: FeatureRoutes = async (app) => {
      app.post('/v1/broken', {
        schema: { summary: 'test: a schema Ajv refuses', body: { type: 'object', properties: { a: { type: 'no-such-type' } } } },
        handler: async () => ({ reached: true }),
      })
    }
    const plugin: EnginePlugin = { name: 'feature:broken', apply: (host) => host.bring(routes(broken)) }
    const { app } = await appWith([...allPlugins, plugin])
    const res = await app.inject({ method: 'POST', url: '/v1/broken', payload: { a: 1 } })
    expect(res.statusCode).toBe(500)
    expect(res.body).not.toContain('reached')
    expect(() => compileAllSchemas(app)).toThrow(/no-such-type|type/)
  })
})
