/**
 * Where each policy layer lives on disk (SPEC "Policy layers"): the shipped daemon policy plus
 * `$SVC_HOME/policy.yaml`, registry rules, the group file, the user file, and `.svc.yaml` per repo.
 */
import { readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { readRegularFile } from '../regular-file.ts'
import { extensionRegistry, type Registries } from '../plugin.ts'
import type { LayerName } from '../types.ts'

export interface PolicySource {
  readonly path: string
  readonly layer: LayerName
  /** The gate view's `source`: `daemon`, `registry:<id>`, `group`, `user`, `per-repo:<path>`; `bundle…` from a signed policy bundle. */
  readonly source: string
  readonly kind: 'policy' | 'group'
  /** A shipped pack's severity chosen in `packs.json`: every deny or monitor gate of the file hits with it. */
  readonly severity?: 'deny' | 'monitor' | undefined
}

/** The repo-layer policy file, looked up at each repository root of a call's cwd. */
export const REPO_POLICY_FILE = '.svc.yaml'

/** Lists the static (non-repo) policy files, in layer order, that exist or may appear; a pack the managed `floor` locks overrides packs.json. */
export function staticSources(policiesDir: string, home: string, floor: ReadonlyMap<string, PackFloor> = new Map()): PolicySource[] {
  const choices = new Map([...packChoices(home), ...[...floor].map(([pack, f]) => [pack, f === 'on' ? undefined : f] as const)])
  const shipped = listDir(policiesDir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .flatMap((f): PolicySource[] => {
      const choice = choices.get(f.replace(/\.ya?ml$/, ''))
      return choice === 'off' ? [] : [{ path: join(policiesDir, f), layer: 'daemon', source: 'daemon', kind: 'policy', severity: choice }]
    })
  const registry = listDir(join(home, 'registry'))
    .sort()
    .map((id): PolicySource => ({ path: join(home, 'registry', id, 'rule.yaml'), layer: 'registry', source: `registry:${id}`, kind: 'policy' }))
  const bundle = bundleSources(home)
  return [
    ...shipped,
    ...bundle.filter((s) => s.layer === 'daemon'),
    { path: join(home, 'policy.yaml'), layer: 'daemon', source: 'daemon', kind: 'policy' },
    ...registry,
    ...bundle.filter((s) => s.layer === 'registry'),
    ...bundle.filter((s) => s.layer === 'group'),
    { path: join(home, 'group-policy.yaml'), layer: 'group', source: 'group', kind: 'group' },
    { path: join(home, 'user-policy.yaml'), layer: 'user', source: 'user', kind: 'policy' },
  ]
}

/** A pack the managed file locks on (`on`: as shipped), by name, whatever packs.json says; the policy-bundle plugin sets it at initialize. */
export type PackFloor = 'on' | 'deny' | 'monitor'
export function packFloorRegistry(registry: Registries): Map<string, PackFloor> {
  return extensionRegistry<PackFloor>(registry, 'pack-floor')
}

/** `$SVC_HOME/packs.json` (`svc policy packs`): a shipped pack off, or its severity; unreadable, every pack stays as shipped. */
export function packChoices(home: string): Map<string, 'off' | 'deny' | 'monitor'> {
  try {
    const packs = (JSON.parse(readRegularFile(join(home, 'packs.json'))) as { packs?: Record<string, unknown> }).packs ?? {}
    return new Map(Object.entries(packs).filter((e): e is [string, 'off' | 'deny' | 'monitor'] => ['off', 'deny', 'monitor'].includes(e[1] as string)))
  } catch {
    return new Map()
  }
}

/** Where the active signed policy bundle's files are: `$SVC_HOME/bundles/active` links to one immutable revision directory. */
export function activeBundleLink(home: string): string {
  return join(home, 'bundles', 'active')
}

/** A bundle's policy files under its `svc` root, by the layer they feed (plugins/policy-bundle/layout.ts writes them). */
export function bundleSources(home: string): PolicySource[] {
  let revisionDir: string
  try {
    // Resolved once per refresh, so every file of one refresh comes from the same revision.
    revisionDir = realpathSync(activeBundleLink(home))
  } catch {
    return []
  }
  return bundleSourcesAt(revisionDir)
}

/** The policy files of one unpacked bundle revision directory (its `files/svc` tree). */
export function bundleSourcesAt(revisionDir: string): PolicySource[] {
  const dir = join(revisionDir, 'files', 'svc')
  const daemon = listDir(join(dir, 'daemon'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f): PolicySource => ({ path: join(dir, 'daemon', f), layer: 'daemon', source: 'bundle', kind: 'policy' }))
  const registry = listDir(join(dir, 'registry'))
    .sort()
    .map((id): PolicySource => ({ path: join(dir, 'registry', id, 'rule.yaml'), layer: 'registry', source: `bundle:registry:${id}`, kind: 'policy' }))
  const group: PolicySource[] = listDir(dir).includes('group-policy.yaml') ? [{ path: join(dir, 'group-policy.yaml'), layer: 'group', source: 'bundle:group', kind: 'group' }] : []
  return [...daemon, ...registry, ...group]
}

/** True for gates a signed bundle brought: the managed floor, which no local seal can disable. */
export function isBundleSource(source: string): boolean {
  return source === 'bundle' || source.startsWith('bundle:')
}

/** The repo layer's source for a git root. */
export function repoSource(root: string): PolicySource {
  return { path: join(root, REPO_POLICY_FILE), layer: 'repo', source: `per-repo:${root}`, kind: 'policy' }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
