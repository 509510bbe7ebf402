/**
 * Packs as a unit the operator sees and chooses (`svc policy packs`): every shipped pack with what it covers,
 * its gates by severity and its state. The choices live in `$SVC_HOME/packs.json` (off, or a severity for the
 * whole pack), which the daemon re-reads within a second; a pack the active signed bundle carries as one of its
 * daemon files is locked on (the bundle's copy is in force whatever the local choice).
 */
import { readFileSync, readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parse } from 'yaml'
import { bundleSources, packChoices, writePrivateFile } from '../../core/index.ts'
import { CliError } from '../io.ts'

export type PackChoice = 'off' | 'deny' | 'monitor'

export interface PackView {
  readonly name: string
  readonly description: string
  readonly gates: { readonly deny: number; readonly monitor: number }
  /** on (as shipped or at a chosen severity), off, or locked on by the active signed bundle. */
  readonly state: 'on' | 'off' | 'locked'
  /** The severity chosen for every gate of the pack, when one is. */
  readonly severity?: 'deny' | 'monitor'
}

/** Every shipped pack, in name order, with the choices of `home`. */
export function listPacks(policiesDir: string, home: string): PackView[] {
  const choices = packChoices(home)
  const locked = new Set(
    bundleSources(home)
      .filter((s) => s.layer === 'daemon' && s.source === 'bundle')
      .map((s) => basename(s.path, '.yaml')),
  )
  return readdirSync(policiesDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const doc = parse(readFileSync(join(policiesDir, f), 'utf8')) as { description?: string; gates?: { on_hit?: string }[] }
      const name = f.replace(/\.yaml$/, '')
      const gates = doc.gates ?? []
      const choice = choices.get(name)
      const description = (doc.description ?? '').replace(new RegExp(`^${name}: `), '')
      return {
        name,
        description,
        gates: { deny: gates.filter((g) => (g.on_hit ?? 'deny') === 'deny').length, monitor: gates.filter((g) => g.on_hit === 'monitor').length },
        state: locked.has(name) ? 'locked' : choice === 'off' ? 'off' : 'on',
        ...(choice === 'deny' || choice === 'monitor' ? { severity: choice } : {}),
      }
    })
}

/** Records `choice` for `pack` (undefined: back to as shipped) in `$SVC_HOME/packs.json`, atomically. */
export function choosePack(policiesDir: string, home: string, pack: string, choice: PackChoice | undefined): void {
  const all = listPacks(policiesDir, home)
  const names = all.map((p) => p.name)
  if (!names.includes(pack)) throw new CliError(`no pack named "${pack}"; the packs are: ${names.join(', ')}`, 2)
  // A pack the signed bundle carries is the administrator's: only putting it back as shipped is the user's to do.
  if (choice !== undefined && all.find((p) => p.name === pack)?.state === 'locked') {
    throw new CliError(`pack_locked: ${pack} is locked on by the active signed policy bundle; its administrator's copy stays in force (svc policy packs)`)
  }
  const packs = Object.fromEntries(packChoices(home))
  if (choice === undefined) delete packs[pack]
  else packs[pack] = choice
  writePrivateFile(join(home, 'packs.json'), `${JSON.stringify({ version: 1, packs }, null, 2)}\n`)
}

/** The table `svc policy packs` prints. */
export function renderPacks(packs: readonly PackView[]): string {
  const width = Math.max(...packs.map((p) => p.name.length))
  const state = (p: PackView) => (p.state === 'locked' ? 'locked on (bundle)' : p.state === 'off' ? 'off' : p.severity ? `on, all ${p.severity}` : 'on')
  const lines = packs.map(
    (p) => `${p.name.padEnd(width)}  ${state(p).padEnd(18)}  ${String(p.gates.deny).padStart(2)} deny ${String(p.gates.monitor).padStart(2)} monitor  ${p.description}`,
  )
  const on = packs.filter((p) => p.state !== 'off').length
  return [...lines, `${on} of ${packs.length} packs on`].join('\n')
}
