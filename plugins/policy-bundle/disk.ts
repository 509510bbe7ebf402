/**
 * The bundles on disk under `$SVC_HOME/bundles/`: each verified revision unpacked once into its own
 * directory (never changed after), and `active`, a symbolic link swapped with one rename, so the policy
 * store sees the old revision or the new one, never a mix. The served bytes are kept beside the files so
 * a restart re-verifies the last good bundle before using it.
 */
import { mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import { activeBundleLink } from '../../core/index.ts'
import type { VerifiedBundle } from './verify.ts'

export const BUNDLE_FILE = 'bundle.tar.gz'

export function bundlesDir(home: string): string {
  return join(home, 'bundles')
}

/** Unpacks a verified bundle into its revision directory (not active yet) and returns that directory. */
export function stageBundle(home: string, bundle: VerifiedBundle, bytes: Uint8Array): string {
  const root = bundlesDir(home)
  const final = join(root, `r${bundle.revision}-${bundle.contentHash.slice(0, 16)}`)
  const staging = join(root, `.staging-${randomBytes(6).toString('hex')}`)
  mkdirSync(staging, { recursive: true, mode: 0o700 })
  try {
    for (const [name, data] of bundle.files) {
      mkdirSync(dirname(join(staging, 'files', name)), { recursive: true })
      writeFileSync(join(staging, 'files', name), data, { mode: 0o600 })
    }
    writeFileSync(join(staging, BUNDLE_FILE), bytes, { mode: 0o600 })
    rmSync(final, { recursive: true, force: true })
    renameSync(staging, final)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return final
}

/** Makes a staged revision directory the active one (one rename of the link) and removes the others. */
export function activate(home: string, revisionDir: string): void {
  const link = activeBundleLink(home)
  const tmp = `${link}.${randomBytes(6).toString('hex')}`
  symlinkSync(basename(revisionDir), tmp)
  renameSync(tmp, link)
  prune(home, basename(revisionDir))
}

/** The active revision's directory and served bytes, or undefined when no bundle is active. */
export function readActive(home: string): { dir: string; bytes: Buffer } | undefined {
  const link = activeBundleLink(home)
  let target: string
  try {
    target = readlinkSync(link)
  } catch {
    return undefined
  }
  const dir = join(bundlesDir(home), basename(target))
  try {
    return { dir, bytes: readFileSync(join(dir, BUNDLE_FILE)) }
  } catch {
    return { dir, bytes: Buffer.alloc(0) }
  }
}

/** Stops using any bundle (its trust roots are gone or it no longer verifies). */
export function deactivate(home: string): void {
  try {
    unlinkSync(activeBundleLink(home))
  } catch {
    // nothing was active
  }
}

/** Removes revision directories other than `keep` (and staging left by a crash). */
export function prune(home: string, keep?: string): void {
  let names: string[]
  try {
    names = readdirSync(bundlesDir(home))
  } catch {
    return
  }
  for (const name of names) {
    if (name === keep || name === 'active' || !(name.startsWith('r') || name.startsWith('.staging-'))) continue
    rmSync(join(bundlesDir(home), name), { recursive: true, force: true })
  }
}
