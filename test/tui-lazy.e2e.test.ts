/**
 * ink and react load for `svc top` alone: `svc --help`, `svc status`, `svc hud`, `svc tail --help` and
 * `svc help top` run in a fresh Node whose module resolutions are recorded, and none resolves ink or react
 * (the last case, importing the TUI itself, shows the probe does see them).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { tempDir } from './helpers/daemon.ts'

const PROBE = `
import module from 'node:module'
const seen = new Set()
module.registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); if (/\\/node_modules\\/(ink|react)\\//.test(r.url)) seen.add(r.url.replace(/.*\\/node_modules\\//, '')); return r } })
const [what, args] = JSON.parse(process.argv[1])
const silent = { out() {}, err() {}, env: { HOME: process.env.HOME, SVC_URL: 'http://127.0.0.1:9' }, readStdin: async () => '', ask: async () => undefined, interactive: false }
if (what === 'main') await (await import(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'cli', 'main.ts')).href)})).main(args, silent)
else await import(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'cli', 'top', 'run.ts')).href)})
process.stdout.write(JSON.stringify([...seen]))
`

function loadedUiModules(what: 'main' | 'tui', args: string[] = []): string[] {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, JSON.stringify([what, args])], {
    env: { PATH: process.env.PATH, HOME: tempDir() },
    encoding: 'utf8',
    timeout: 60_000,
  })
  if (r.status !== 0) throw new Error(`probe failed (${r.status}): ${r.stderr}`)
  return JSON.parse(r.stdout) as string[]
}

describe('ink and react are loaded only for svc top', () => {
  it.each([[['--help']], [['status']], [['hud']], [['tail', '--help']], [['log', '--help']], [['help', 'top']]])('svc %j loads neither', (args) => {
    expect(loadedUiModules('main', args)).toEqual([])
  })

  it('the TUI itself does (the probe sees them)', () => {
    const loaded = loadedUiModules('tui')
    expect(loaded.some((u) => u.startsWith('ink/'))).toBe(true)
    expect(loaded.some((u) => u.startsWith('react/'))).toBe(true)
  })
})
