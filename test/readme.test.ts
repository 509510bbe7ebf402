/** Every policy example in the README and docs/*.md must load: documentation that does not compile is a bug. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT, SHIPPED_POLICIES_DIR } from '../cli/paths.ts'
import { allPlugins } from '../cli/plugins.ts'
import { createEngine } from '../core/index.ts'
import { markdownDocuments } from '../scripts/layout.ts'
import { tempDir } from './helpers/temp.ts'

const documents = markdownDocuments()
const blocks = documents.flatMap((doc) =>
  [...readFileSync(join(PROJECT_ROOT, doc), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((b) => b.includes('version: 1'))
    .map((b, i) => [`${doc} #${i + 1}`, b] as const),
)

describe('policy examples in the README and docs/', () => {
  it('has examples', () => expect(blocks.length).toBeGreaterThan(0))
  it.each(blocks)('%s loads', async (_where, text) => {
    const home = tempDir()
    mkdirSync(home, { recursive: true })
    const file = join(home, text.includes('groups:') ? 'group-policy.yaml' : 'policy.yaml')
    writeFileSync(file, text)
    const engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
    expect(engine.policy.files().filter((f) => f.status === 'error')).toEqual([])
    // The example itself was read as a policy layer (not merely absent) and defines gates.
    const own = engine.policy.files().find((f) => f.path === file)
    expect(own, `${file} is not one of the engine's policy files`).toMatchObject({ status: 'ok' })
    expect(own!.gates).toBeGreaterThan(0)
    await engine.close()
  })
})
