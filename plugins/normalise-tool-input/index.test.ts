/** The one pass that normalises a tool input's paths, URLs and MCP name (no second pass adds paths). */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { applyPlugins, createHooks, createRegistries, type EvalContext, type EvalRequest } from '../../core/index.ts'
import plugin from './index.ts'

const home = mkdtempSync(join(tmpdir(), 'svc-normalise-'))
const hooks = createHooks()
applyPlugins([plugin], { hooks, registry: createRegistries(), log: pino({ enabled: false }), home })
const ctx = { now: Date.now(), home, svcHome: home, policiesDir: home, svcPorts: [] } as unknown as EvalContext
const normalise = (tool: string, input: Record<string, unknown>, cwd = '/work'): Promise<EvalRequest> =>
  hooks.preEvaluate.promise({ sessionId: 's', source: 'test', tool, input, cwd, paths: [], urls: [] }, ctx)

describe('normalise:tool-input', () => {
  it('sees every file of a multi-file input (file_paths), relative ones against cwd', async () => {
    const r = await normalise('apply_patch', { file_paths: ['/etc/a', 'rel/b'] })
    expect(r.paths).toEqual(expect.arrayContaining(['/etc/a', '/work/rel/b']))
  })

  it('keeps a top-level path field even when the bounded walk is exhausted before it', async () => {
    const noise = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, 'x']))
    const r = await normalise('Write', { ...noise, file_path: '/etc/passwd' })
    expect(r.paths).toContain('/etc/passwd')
  })

  it('finds nested paths, URLs of fetch tools and the MCP server of mcp__ tools', async () => {
    const r = await normalise('mcp__gh__fetch_url', { opts: { destination: '~/x' }, text: 'see https://example.com/a' })
    expect(r.paths).toContain(join(home, 'x'))
    expect(r.urls.map((u) => u.host)).toContain('example.com')
    expect(r.mcp).toEqual({ server: 'gh', tool: 'fetch_url' })
  })
})
