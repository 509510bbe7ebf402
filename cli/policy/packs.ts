/**
 * Packs as a unit the operator sees and chooses (`svc policy packs`): every shipped pack with what it covers,
 * its gates by severity and its state. The choices live in `$SVC_HOME/packs.json` (off, or a severity for the
 * whole pack), which the daemon re-reads within a second. Locked on, whatever the local choice: a pack the active
 * signed bundle carries as one of its daemon files (the bundle's copy is in force), and a pack the root-owned managed
 * file's `floor.packs` names (as shipped or at its severity).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parse } from 'yaml'
import { bundleSources, packChoices, sha256, writePrivateFile, type PackFloor } from '../../core/index.ts'
import { readManaged } from '../../plugins/policy-bundle/index.ts'
import { CliError } from '../io.ts'

export type PackChoice = 'off' | 'deny' | 'monitor'

export interface PackView {
  readonly name: string
  readonly description: string
  readonly gates: { readonly deny: number; readonly monitor: number }
  /** on (as shipped or at a chosen severity), off, or locked on (by the active signed bundle or the managed file). */
  readonly state: 'on' | 'off' | 'locked'
  readonly lockedBy?: 'bundle' | 'managed'
  /** The severity chosen (or locked by the managed file) for every gate of the pack, when one is. */
  readonly severity?: 'deny' | 'monitor'
}

/** The packs the managed file locks on; none when there is no managed file or it is unusable (the daemon refuses to start on that, and says why). */
export function managedPackFloor(env: Readonly<Record<string, string | undefined>>): ReadonlyMap<string, PackFloor> {
  try {
    return new Map(Object.entries(readManaged(env)?.floor.packs ?? {}))
  } catch {
    return new Map()
  }
}

/** Every shipped pack, in name order, with the choices of `home` under the managed `floor`. */
export function listPacks(policiesDir: string, home: string, floor: ReadonlyMap<string, PackFloor> = new Map()): PackView[] {
  const choices = packChoices(home)
  const bundled = new Set(
    bundleSources(home)
      .filter((s) => s.layer === 'daemon' && s.source === 'bundle')
      .map((s) => basename(s.path, '.yaml')),
  )
  return packSummaries(policiesDir, home).map(({ name, description, gates }): PackView => {
    const locked = floor.get(name)
    const choice = locked ?? choices.get(name)
    return {
      name,
      description,
      gates,
      ...(locked ? { state: 'locked', lockedBy: 'managed' } : bundled.has(name) ? { state: 'locked', lockedBy: 'bundle' } : { state: choice === 'off' ? 'off' : 'on' }),
      ...(choice === 'deny' || choice === 'monitor' ? { severity: choice } : {}),
    }
  })
}

interface PackSummary {
  readonly name: string
  readonly description: string
  readonly gates: { readonly deny: number; readonly monitor: number }
}

/**
 * What listing needs from each pack file, parsed once per content: parsing every pack is most of `svc status`'s
 * time, so summaries are kept in `$SVC_HOME/cache/packs.json` by the file's sha256 (written only where the home exists).
 */
function packSummaries(policiesDir: string, home: string): PackSummary[] {
  const cachePath = join(home, 'cache', 'packs.json')
  let cached: Record<string, { sha: string; summary: PackSummary }> = {}
  try {
    cached = JSON.parse(readFileSync(cachePath, 'utf8'))
  } catch {
    // no cache yet, or a damaged one: parse every pack
  }
  let missed = false
  const summaries = readdirSync(policiesDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const text = readFileSync(join(policiesDir, f), 'utf8')
      const sha = sha256(text)
      const hit = cached[f]
      if (hit?.sha === sha) return hit.summary
      missed = true
      const doc = parse(text) as { description?: string; gates?: { on_hit?: string }[] }
      const name = f.replace(/\.yaml$/, '')
      const gates = doc.gates ?? []
      const summary: PackSummary = {
        name,
        description: (doc.description ?? '').replace(new RegExp(`^${name}: `), ''),
        gates: { deny: gates.filter((g) => (g.on_hit ?? 'deny') === 'deny').length, monitor: gates.filter((g) => g.on_hit === 'monitor').length },
      }
      cached[f] = { sha, summary }
      return summary
    })
  if (missed && existsSync(home)) {
    try {
      writePrivateFile(cachePath, JSON.stringify(cached))
    } catch {
      // a cache that cannot be written costs the next listing a parse, nothing else
    }
  }
  return summaries
}

/** Records `choice` for `pack` (undefined: back to as shipped) in `$SVC_HOME/packs.json`, atomically. */
export function choosePack(policiesDir: string, home: string, pack: string, choice: PackChoice | undefined, floor?: ReadonlyMap<string, PackFloor>): void {
  const all = listPacks(policiesDir, home, floor)
  const names = all.map((p) => p.name)
  if (!names.includes(pack)) throw new CliError(`no pack named "${pack}"; the packs are: ${names.join(', ')}`, 2)
  // A locked pack is the administrator's: only putting it back as shipped is the user's to do.
  const lockedBy = choice === undefined ? undefined : all.find((p) => p.name === pack)?.lockedBy
  if (lockedBy === 'bundle') {
    throw new CliError(`pack_locked: ${pack} is locked on by the active signed policy bundle; its administrator's copy stays in force (svc policy packs)`)
  }
  if (lockedBy === 'managed') {
    throw new CliError(`pack_locked: ${pack} is locked on by the machine's managed file (floor.packs); only its administrator can change it there (svc policy packs)`)
  }
  const packs = Object.fromEntries(packChoices(home))
  if (choice === undefined) delete packs[pack]
  else packs[pack] = choice
  writePrivateFile(join(home, 'packs.json'), `${JSON.stringify({ version: 1, packs }, null, 2)}\n`)
}

/** The table `svc policy packs` prints. */
export function renderPacks(packs: readonly PackView[]): string {
  const width = Math.max(...packs.map((p) => p.name.length))
  const severity = (p: PackView) => (p.severity ? `, all ${p.severity}` : '')
  const state = (p: PackView) => (p.state === 'locked' ? `locked on (${p.lockedBy})${severity(p)}` : p.state === 'off' ? 'off' : `on${severity(p)}`)
  const stateWidth = Math.max(...packs.map((p) => state(p).length))
  const lines = packs.map(
    (p) => `${p.name.padEnd(width)}  ${state(p).padEnd(stateWidth)}  ${String(p.gates.deny).padStart(2)} deny ${String(p.gates.monitor).padStart(2)} monitor  ${p.description}`,
  )
  const on = packs.filter((p) => p.state !== 'off').length
  return [...lines, `${on} of ${packs.length} packs on`].join('\n')
}
