/**
 * The install manifest in `$SVC_HOME/install/manifest.json`: every file we touched, its original bytes
 * (as a backup taken on first touch), the hash of what we left there, and each entry we wrote. Uninstall
 * touches only what the manifest names.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sha256, writePrivateFile } from '../../core/index.ts'
import type { HarnessScope, TrustRequest } from '../../harness-contract/index.ts'

/** One entry we wrote into a file. */
export type ManifestEntry =
  | {
      readonly harness: string
      readonly format: 'jsonc'
      readonly pointer: readonly string[]
      readonly value: unknown
      /** `set`: `value` replaced the setting at `pointer`; `previous` is what was there (absent: no such key). */
      readonly op?: 'set'
      readonly previous?: unknown
      /** `sandbox`: written by `svc install --sandbox` (the harness's own OS sandbox), not a hook entry. */
      readonly layer?: 'sandbox'
    }
  | { readonly harness: string; readonly format: 'toml'; readonly text: string; readonly block?: string; readonly layer?: 'sandbox' }

export interface ManifestFile {
  readonly format: 'jsonc' | 'toml'
  readonly scope: HarnessScope
  readonly harnesses: readonly string[]
  /** True when the file did not exist before our first install. */
  readonly createdFile: boolean
  /** Directories we created for it, deepest last. */
  readonly createdDirs: readonly string[]
  /** Backup of the original bytes (absent when we created the file). */
  readonly backup?: string
  readonly originalHash: string | null
  /** Hash of the file as our last apply left it. */
  readonly installedHash: string
  readonly entries: readonly ManifestEntry[]
}

export interface AppliedToken {
  readonly token: string
  /** sha256 of each file's content after the apply (null: the file was deleted). */
  readonly files: Readonly<Record<string, string | null>>
}

export interface Manifest {
  readonly version: 1
  /** Marker written into every entry (`--svc-install=<id>`). */
  readonly installId: string
  readonly files: Readonly<Record<string, ManifestFile>>
  /** Idempotency tokens already applied (most recent last), with the file hashes each one left behind. */
  readonly appliedTokens: readonly AppliedToken[]
}

/** Where the install manifest of `svcHome` lives. */
function manifestPath(svcHome: string): string {
  return join(svcHome, 'install', 'manifest.json')
}

/** Reads the manifest, or a fresh one with a new install id. A corrupt manifest is an error, never reset. */
export function readManifest(svcHome: string): Manifest {
  let text: string
  try {
    text = readFileSync(manifestPath(svcHome), 'utf8')
  } catch {
    // Derived from $SVC_HOME so planning needs no write and two plans agree.
    return { version: 1, installId: `svc-${sha256(svcHome).slice(0, 12)}`, files: {}, appliedTokens: [] }
  }
  const parsed = JSON.parse(text) as Manifest
  if (parsed?.version !== 1 || typeof parsed.installId !== 'string' || typeof parsed.files !== 'object') {
    throw new Error(`${manifestPath(svcHome)} is not an svc install manifest; refusing to guess what was installed`)
  }
  return parsed
}

/** Replaces the install manifest atomically (0600). */
export function writeManifest(svcHome: string, manifest: Manifest): void {
  writePrivateFile(manifestPath(svcHome), `${JSON.stringify(manifest, null, 2)}\n`)
}

/** Where the first-touch backup of `path` lives. */
export function backupPath(svcHome: string, path: string): string {
  const base = path.split('/').pop() ?? 'file'
  return join(svcHome, 'install', 'backups', `${sha256(path).slice(0, 16)}-${base}`)
}

/** svc's entries for `harness` with their files: what its trust step works on (never the configs, which anyone can edit). */
export function entriesOf(manifest: Pick<Manifest, 'files'> | undefined, harness: string): TrustRequest['entries'] {
  return Object.entries(manifest?.files ?? {}).flatMap(([file, record]) =>
    record.entries.filter((e) => e.harness === harness).map((e) => (e.format === 'toml' ? { file, text: e.text } : { file, value: e.value })),
  )
}
