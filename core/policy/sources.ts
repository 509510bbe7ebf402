/**
 * Where each policy layer lives on disk (SPEC "Policy layers"): the shipped daemon policy plus
 * `$SVC_HOME/policy.yaml`, registry rules, the group file, the user file, and `.svc.yaml` per repo.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { LayerName } from '../types.ts'

export interface PolicySource {
  readonly path: string
  readonly layer: LayerName
  /** The gate view's `source`: `daemon`, `registry:<id>`, `group`, `user`, `per-repo:<path>`. */
  readonly source: string
  readonly kind: 'policy' | 'group'
}

/** The repo-layer policy file, looked up at each repository root of a call's cwd. */
export const REPO_POLICY_FILE = '.svc.yaml'

/** Lists the static (non-repo) policy files, in layer order, that exist or may appear. */
export function staticSources(policiesDir: string, home: string): PolicySource[] {
  const shipped = listDir(policiesDir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .map((f): PolicySource => ({ path: join(policiesDir, f), layer: 'daemon', source: 'daemon', kind: 'policy' }))
  const registry = listDir(join(home, 'registry'))
    .sort()
    .map((id): PolicySource => ({ path: join(home, 'registry', id, 'rule.yaml'), layer: 'registry', source: `registry:${id}`, kind: 'policy' }))
  return [
    ...shipped,
    { path: join(home, 'policy.yaml'), layer: 'daemon', source: 'daemon', kind: 'policy' },
    ...registry,
    { path: join(home, 'group-policy.yaml'), layer: 'group', source: 'group', kind: 'group' },
    { path: join(home, 'user-policy.yaml'), layer: 'user', source: 'user', kind: 'policy' },
  ]
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
