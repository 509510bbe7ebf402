/** What `svc status` says each harness's sandbox covers: every OS sandbox svc configures has its covers declared, as measured. */
import { describe, expect, it } from 'vitest'
import { harnessPlugins } from '../../harnesses/index.ts'
import { sandboxLayer } from './layers.ts'

const HARNESSES = harnessPlugins.map((p) => p.harness)

describe('sandbox layers per harness', () => {
  it('every harness with an OS sandbox declares what it covers (OpenCode has none); only Claude Code covers everything', () => {
    expect(HARNESSES.filter((h) => h.sandboxCovers).map((h) => h.id)).toEqual(['claude-code', 'codex', 'gemini', 'cursor', 'copilot-cli'])
    const full = HARNESSES.filter((h) => h.sandboxPlan && sandboxLayer('on', h, undefined).layers === 'full').map((h) => h.id)
    expect(full).toEqual(['claude-code'])
  })

  it("Copilot CLI's sandbox (run by the harm suite) leaves secrets open and hides svc's home; off, everything is open", () => {
    const copilot = HARNESSES.find((h) => h.id === 'copilot-cli')!
    expect(sandboxLayer('on', copilot, undefined)).toMatchObject({ layers: 'degraded', open: ['reading secrets (keys, credentials, .env)'] })
    expect(sandboxLayer('off', copilot, undefined).open).toHaveLength(5)
  })
})
