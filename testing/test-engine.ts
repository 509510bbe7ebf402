/**
 * A core-only engine for tests of the core itself (no plugin folder): one test gate kind, `tool_is`, and a
 * policy written to a temp directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { createEngine, type Engine } from '../core/engine.ts'
import { defineGateKind } from '../core/plugin.ts'
import { tempDir } from './ledger-fixtures.ts'

/** `when: { tool_is: Name }` holds for calls to that tool. */
export const toolIs = defineGateKind<string>({
  kind: 'tool_is',
  description: 'test: the call is to this tool',
  schema: { type: 'string' },
  compile: (tool) => (request) => (request.tool === tool ? `tool ${tool}` : undefined),
})

/** An engine over `policyYaml` (the daemon layer) with only `tool_is`; `close` also removes its files. */
export async function testEngine(policyYaml: string): Promise<Engine> {
  const { dir, cleanup } = tempDir('svc-core-engine-')
  const policiesDir = join(dir, 'policies')
  mkdirSync(policiesDir)
  writeFileSync(join(policiesDir, 'test.yaml'), policyYaml)
  const engine = await createEngine({ plugins: [toolIs], home: join(dir, 'home'), policiesDir, log: pino({ level: 'silent' }) })
  return {
    ...engine,
    async close() {
      await engine.close()
      cleanup()
    },
  }
}
