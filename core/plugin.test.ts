import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createHooks } from './hooks.ts'
import { applyPlugins, createRegistries, type EnginePlugin, type PluginHost } from './plugin.ts'

describe('plugin host', () => {
  it('lets a plugin tap hooks but not run them (checked by tsc through @ts-expect-error)', async () => {
    const hooks = createHooks()
    const seen: string[] = []
    const plugin: EnginePlugin = {
      name: 'test:tap-only',
      apply(host: PluginHost) {
        host.hooks.initialize.tapPromise('test:tap-only', async () => {
          seen.push('initialize')
        })
        // @ts-expect-error plugins tap; only the engine runs a hook
        expect(typeof host.hooks.initialize.promise).toBe('function')
        // @ts-expect-error plugins tap; only the engine runs a hook
        expect(typeof host.hooks.ledgerAppend.call).toBe('function')
      },
    }
    applyPlugins([plugin], { hooks, registry: createRegistries(), log: pino({ enabled: false }), home: '/nonexistent', env: {} })
    await hooks.initialize.promise()
    expect(seen).toEqual(['initialize'])
  })
})
