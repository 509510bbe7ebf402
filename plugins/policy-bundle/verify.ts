/**
 * Everything a bundle must pass before svc looks at its policy: it unpacks, its signature is by a pinned
 * key over exactly its files, its manifest is well formed, and this svc is new enough for it. Shared by
 * `svc policy bundle verify` and the daemon, so both refuse the same bundles for the same reasons.
 */
import { sha256 } from '../../core/index.ts'
import { createRequire } from 'node:module'
import { BundleError, MANIFEST } from './layout.ts'
import { compareVersions, parseManifest, type BundleManifest } from './manifest.ts'
import { fileList, verifyFiles, type TrustRoot } from './signature.ts'

export const SVC_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version

export interface VerifiedBundle {
  readonly manifest: BundleManifest
  readonly revision: number
  /** SHA-256 of the bundle.tar.gz bytes as served (what the ledger and the status name). */
  readonly sha256: string
  /** SHA-256 over the signed file list: equal for two bundles with the same files, however they were packed. */
  readonly contentHash: string
  readonly keyid: string
  readonly files: ReadonlyMap<string, Buffer>
  /** `metadata.expires` in ms, when set. */
  readonly expiresAt?: number
}

export async function verifyBundle(bytes: Uint8Array, roots: readonly TrustRoot[]): Promise<VerifiedBundle> {
  if (roots.length === 0) throw new BundleError('no bundle-signing keys are pinned; every bundle is refused')
  // tar loads when a bundle is first checked, not at every daemon start (most have no managed bundle).
  const { unpackBundle } = await import('./archive.ts')
  const files = await unpackBundle(bytes)
  let keyid: string
  try {
    keyid = await verifyFiles(files, roots)
  } catch (err) {
    if (err instanceof BundleError) err.claimedRevision = claimedRevision(files.get(MANIFEST))
    throw err
  }
  const manifest = parseManifest(files.get(MANIFEST))
  const min = manifest.metadata.min_svc
  if (min !== undefined && compareVersions(SVC_VERSION, min) < 0)
    throw new BundleError(`bundle revision ${manifest.revision} needs svc ${min} or newer; this is svc ${SVC_VERSION}`)
  const expires = manifest.metadata.expires
  return {
    manifest,
    revision: manifest.revision,
    sha256: sha256(bytes),
    contentHash: sha256(JSON.stringify(fileList(files))),
    keyid,
    files,
    ...(expires !== undefined ? { expiresAt: Date.parse(expires) } : {}),
  }
}

/** Why a verified bundle may not replace the active one (no rollback, no expired bundle), or undefined. */
export function refusalAgainst(next: VerifiedBundle, active: { revision: number; contentHash: string } | undefined, now: number): string | undefined {
  if (next.expiresAt !== undefined && next.expiresAt <= now) return `bundle revision ${next.revision} expired at ${new Date(next.expiresAt).toISOString()}`
  if (!active) return undefined
  if (next.revision < active.revision) return `bundle revision ${next.revision} is older than the active revision ${active.revision} (rollback refused)`
  if (next.revision === active.revision && next.contentHash !== active.contentHash)
    return `bundle revision ${next.revision} has different content from the active bundle of the same revision (refused: a new policy needs a new revision)`
  return undefined
}

function claimedRevision(manifest: Uint8Array | undefined): number | undefined {
  try {
    return parseManifest(manifest).revision
  } catch {
    return undefined
  }
}
