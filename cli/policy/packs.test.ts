/** Packs as a unit: listing, the operator's choices in packs.json, and the engine honouring them on reload. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { createEngine, type Engine } from '../../core/index.ts'
import { SHIPPED_POLICIES_DIR } from '../paths.ts'
import { allPlugins } from '../plugins.ts'
import { choosePack, listPacks, renderPacks } from './packs.ts'

const engines: Engine[] = []
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close()
})
async function engineAt(home: string): Promise<Engine> {
  const engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
  engines.push(engine)
  return engine
}
const decide = async (engine: Engine, command: string) => (await engine.decide({ sessionId: 't', source: 't', tool: 'Bash', input: { command }, cwd: tmpdir() })).decision

describe('svc policy packs', () => {
  it('lists every shipped pack with what it covers, its gates by severity and its state', () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-packs-'))
    const packs = listPacks(SHIPPED_POLICIES_DIR, home)
    expect(packs.map((p) => p.name)).toEqual(
      expect.arrayContaining(['databases', 'cloud', 'kubernetes', 'iac', 'containers', 'code-hosting', 'secret-managers', 'backups', 'hosts', 'publishing', 'platforms', 'git']),
    )
    for (const p of packs) {
      expect(p.description, p.name).not.toBe('')
      expect(p.state, p.name).toBe('on')
    }
    expect(packs.find((p) => p.name === 'iac')?.gates).toEqual({ deny: 1, monitor: 1 })
    expect(renderPacks(packs)).toMatch(/^(\d+) of \1 packs on$/m)
  })

  it('keeps pack summaries by content in $SVC_HOME/cache: a damaged cache or a changed pack is parsed again', () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-packs-'))
    const first = listPacks(SHIPPED_POLICIES_DIR, home)
    const cache = join(home, 'cache', 'packs.json')
    expect(Object.keys(JSON.parse(readFileSync(cache, 'utf8')))).toContain('iac.yaml')
    expect(listPacks(SHIPPED_POLICIES_DIR, home)).toEqual(first)
    writeFileSync(cache, '{not json')
    expect(listPacks(SHIPPED_POLICIES_DIR, home)).toEqual(first)
    // A cached summary whose hash no longer matches the file is not used.
    const stale = JSON.parse(readFileSync(cache, 'utf8'))
    stale['iac.yaml'] = { sha: 'old', summary: { name: 'iac', description: 'stale', gates: { deny: 9, monitor: 9 } } }
    writeFileSync(cache, JSON.stringify(stale))
    expect(listPacks(SHIPPED_POLICIES_DIR, home).find((p) => p.name === 'iac')).toEqual(first.find((p) => p.name === 'iac'))
  })

  it('every gate of a shipped pack is tagged with its pack, and every deny says what to do instead', () => {
    for (const f of readdirSync(SHIPPED_POLICIES_DIR).filter((n) => n.endsWith('.yaml'))) {
      const doc = parse(readFileSync(join(SHIPPED_POLICIES_DIR, f), 'utf8')) as { gates: { id: string; tags?: string[]; on_hit?: string; nudge?: string }[] }
      for (const g of doc.gates) {
        expect(g.tags, g.id).toContain(`pack:${f.replace(/\.yaml$/, '')}`)
        if ((g.on_hit ?? 'deny') === 'deny') expect(g.nudge?.length ?? 0, `${g.id} has a nudge`).toBeGreaterThan(20)
      }
    }
  })

  it('records choices atomically, refuses unknown packs, and a pack the signed bundle carries is locked on', () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-packs-'))
    choosePack(SHIPPED_POLICIES_DIR, home, 'publishing', 'off')
    choosePack(SHIPPED_POLICIES_DIR, home, 'kubernetes', 'deny')
    expect(() => choosePack(SHIPPED_POLICIES_DIR, home, 'nope', 'off')).toThrow(/no pack named "nope"/)
    let packs = listPacks(SHIPPED_POLICIES_DIR, home)
    expect(packs.find((p) => p.name === 'publishing')?.state).toBe('off')
    expect(packs.find((p) => p.name === 'kubernetes')).toMatchObject({ state: 'on', severity: 'deny' })
    choosePack(SHIPPED_POLICIES_DIR, home, 'kubernetes', undefined)
    expect(listPacks(SHIPPED_POLICIES_DIR, home).find((p) => p.name === 'kubernetes')?.severity).toBeUndefined()
    // An active bundle revision carrying daemon/publishing.yaml.
    const revision = join(home, 'bundles', 'r1')
    mkdirSync(join(revision, 'files', 'svc', 'daemon'), { recursive: true })
    writeFileSync(join(revision, 'files', 'svc', 'daemon', 'publishing.yaml'), 'version: 1\ngates: []\n')
    mkdirSync(join(home, 'bundles'), { recursive: true })
    symlinkSync(revision, join(home, 'bundles', 'active'))
    packs = listPacks(SHIPPED_POLICIES_DIR, home)
    expect(packs.find((p) => p.name === 'publishing')?.state).toBe('locked')
    // Locked on: turning it off or loosening it is refused with a named error; putting it back as shipped is not.
    expect(() => choosePack(SHIPPED_POLICIES_DIR, home, 'publishing', 'off')).toThrow(/^pack_locked: publishing is locked on by the active signed policy bundle/)
    expect(() => choosePack(SHIPPED_POLICIES_DIR, home, 'publishing', 'monitor')).toThrow(/^pack_locked:/)
    choosePack(SHIPPED_POLICIES_DIR, home, 'publishing', undefined)
    expect(listPacks(SHIPPED_POLICIES_DIR, home).find((p) => p.name === 'publishing')?.state).toBe('locked')
  })

  it('the engine leaves a pack out when it is off, applies a chosen severity, and picks both up on reload', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-packs-'))
    const engine = await engineAt(home)
    expect((await decide(engine, 'terraform destroy -auto-approve')).ruleId).toBe('iac.destroy')
    expect((await decide(engine, 'terraform apply')).ledgerVerdict).toBe('monitor_alert')
    choosePack(SHIPPED_POLICIES_DIR, home, 'iac', 'off')
    engine.policy.refresh(Date.now())
    expect((await decide(engine, 'terraform destroy -auto-approve')).verdict).toBe('allow')
    choosePack(SHIPPED_POLICIES_DIR, home, 'iac', 'deny')
    engine.policy.refresh(Date.now())
    expect(await decide(engine, 'terraform apply')).toMatchObject({ verdict: 'deny', ruleId: 'iac.apply' })
    choosePack(SHIPPED_POLICIES_DIR, home, 'iac', 'monitor')
    engine.policy.refresh(Date.now())
    expect(await decide(engine, 'terraform destroy')).toMatchObject({ verdict: 'allow', ledgerVerdict: 'monitor_alert', ruleId: 'iac.destroy' })
    // A file that cannot be parsed chooses nothing: every pack is back as shipped.
    writeFileSync(join(home, 'packs.json'), '{not json')
    engine.policy.refresh(Date.now())
    expect(await decide(engine, 'terraform destroy')).toMatchObject({ verdict: 'deny', ruleId: 'iac.destroy' })
  })
})
