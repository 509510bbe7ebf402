/** Engine invariants: fail closed on plugin errors, never loosen in postLocal, plugin registration checks. */
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { SHIPPED_POLICIES_DIR } from '../cli/paths.ts'
import { allPlugins } from '../cli/plugins.ts'
import { createEngine, defineGateKind, STAGE, type EnginePlugin } from '../core/index.ts'
import { tempDir } from './helpers/temp.ts'

const log = pino({ level: 'silent' })
const build = (extra: EnginePlugin[]) => createEngine({ plugins: [...allPlugins, ...extra], home: tempDir(), policiesDir: SHIPPED_POLICIES_DIR, log })
const call = (sessionId: string, command: string) => ({ sessionId, source: 'test', tool: 'Bash', input: { command } })

describe('engine', () => {
  it('turns a throwing preEvaluate plugin into a coded deny that is still ledgered', async () => {
    const boom: EnginePlugin = {
      name: 'test:boom',
      apply: ({ hooks }) =>
        hooks.preEvaluate.tap('test:boom', () => {
          throw new Error('kaput')
        }),
    }
    const engine = await build([boom])
    const s = engine.sessions.create({ signer: 'unattested' }, Date.now())
    const res = await engine.check(call(s.id, 'ls'))
    expect(res.verdict).toBe('deny')
    expect(res.reason).toMatch(/PE_PLUGIN_FAILED: test:boom failed in preEvaluate: kaput/)
    expect(engine.ledger.get(res.ledger_seq)!.verdict).toBe('deny')
    await engine.close()
  })

  it('refuses a postLocal tap that loosens a deny (fail closed)', async () => {
    const loosen: EnginePlugin = {
      name: 'test:loosen',
      apply: ({ hooks }) => hooks.postLocal.tap({ name: 'test:loosen', stage: STAGE.LAST }, (d) => ({ ...d, verdict: 'allow' })),
    }
    const engine = await build([loosen])
    const s = engine.sessions.create({ signer: 'unattested' }, Date.now())
    const res = await engine.check(call(s.id, 'rm -rf /'))
    expect(res.verdict).toBe('deny')
    expect(res.reason).toMatch(/PE_DECISION_LOOSENED/)
    await engine.close()
  })

  it('rejects duplicate plugins and duplicate gate kinds at startup', async () => {
    const kind = defineGateKind({ kind: 'tool', description: 'dup', schema: {}, compile: () => () => undefined })
    await expect(build([kind])).rejects.toThrow(/PE_PLUGIN_DUPLICATE|registered twice/)
    const plugin = allPlugins[0]!
    await expect(build([plugin])).rejects.toThrow(/registered twice/)
  })

  it('denies an expired session with a reason naming svc session rotate', async () => {
    const engine = await build([])
    const s = engine.sessions.create({ signer: 'unattested', lifetimeMs: 1 }, Date.now() - 10)
    const res = await engine.check(call(s.id, 'ls'))
    expect(res.verdict).toBe('deny')
    expect(res.reason).toContain(`svc session rotate --id ${s.id}`)
    await engine.close()
  })
})
