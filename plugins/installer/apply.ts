/**
 * Applies a plan: backup on first touch, atomic writes, the manifest updated file by file, the shim
 * installed into `$SVC_HOME/bin`. A token applied before whose plan has since been carried out is a no-op;
 * any other token that no longer matches the files on disk is a PlanConflictError (409 at the API).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { readText, sha256 } from '../../core/index.ts'
import { ensureHookKey } from '../../hook-key/index.ts'
import { backupPath, readManifest, writeManifest } from './manifest.ts'
import type { Manifest, ManifestFile } from './manifest.ts'
import { entryPresent } from './entry-present.ts'
import { PlanConflictError, planInstall, planUninstall } from './plan.ts'
import { shimPath, shimText } from './shim.ts'
import type { InstallRequest, Plan, UninstallRequest } from './plan.ts'

export interface ApplyResult {
  /** False when the token had been applied before (nothing written this time). */
  readonly applied: boolean
  readonly plan: Plan
}

const MAX_TOKENS = 64

/** Installs (or refreshes) the POSIX shim as `$SVC_HOME/bin/svc-hook`, beside the hook key it checks answers with. */
export function installShim(svcHome: string): string {
  ensureHookKey(svcHome)
  const target = shimPath(svcHome)
  const source = shimText()
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 })
  if (!existsSync(target) || readFileSync(target, 'utf8') !== source) writeFileAtomic.sync(target, source, { mode: 0o755 })
  return target
}

/** Directories from `dir` upwards that do not exist yet, outermost first. */
function missingDirs(dir: string): string[] {
  const out: string[] = []
  for (let d = dir; !existsSync(d); d = dirname(d)) out.unshift(d)
  return out
}

function remember(manifest: Manifest, token: string, plan: Plan): Manifest {
  const files = Object.fromEntries(plan.changes.map((c) => [c.path, c.after === undefined ? null : sha256(c.after)]))
  return { ...manifest, appliedTokens: [...manifest.appliedTokens.filter((t) => t.token !== token), { token, files }].slice(-MAX_TOKENS) }
}

/** True when `token` was applied and every file it wrote still holds what it wrote: a repeat, not a conflict. */
function isRepeat(manifest: Manifest, token: string): boolean {
  const applied = manifest.appliedTokens.find((t) => t.token === token)
  if (!applied) return false
  return Object.entries(applied.files).every(([path, hash]) => {
    const text = readText(path)
    return hash === null ? text === undefined : text !== undefined && sha256(text) === hash
  })
}

/** Plans again from the same request and applies it when the token still matches. */
export function applyInstall(req: InstallRequest, token: string): ApplyResult {
  let manifest = readManifest(req.svcHome)
  const plan = planInstall(req)
  // A token matching the files as they are now is applied (again, after an uninstall); one applied
  // before whose plan is now different is the same request repeated: nothing to do.
  if (plan.token !== token) {
    if (isRepeat(manifest, token)) return { applied: false, plan }
    throw new PlanConflictError('the harness configs changed since this plan was made; plan again and review the new diff')
  }
  installShim(req.svcHome)
  for (const change of plan.changes) {
    const previous = manifest.files[change.path]
    let record: ManifestFile
    if (previous) {
      // Entries a re-install replaced (a changed daemon URL or shim line) are no longer in the file: forget them.
      const kept = previous.entries.filter((e) => entryPresent(change.after ?? '', e))
      record = {
        ...previous,
        installedHash: sha256(change.after ?? ''),
        entries: [...kept, ...change.entries],
        harnesses: [...new Set([...previous.harnesses, ...change.harnesses])],
      }
    } else {
      const createdDirs = missingDirs(dirname(change.path))
      let backup: string | undefined
      if (change.before !== undefined) {
        backup = backupPath(req.svcHome, change.path)
        mkdirSync(dirname(backup), { recursive: true, mode: 0o700 })
        writeFileAtomic.sync(backup, change.before, { mode: 0o600 })
      }
      record = {
        format: change.format,
        scope: change.scope,
        harnesses: change.harnesses,
        createdFile: change.before === undefined,
        createdDirs,
        ...(backup ? { backup } : {}),
        originalHash: change.before === undefined ? null : sha256(change.before),
        installedHash: sha256(change.after ?? ''),
        entries: change.entries,
      }
    }
    // The manifest names the file before it changes, so a crash in between leaves nothing unaccounted for.
    manifest = { ...manifest, files: { ...manifest.files, [change.path]: record } }
    writeManifest(req.svcHome, manifest)
    mkdirSync(dirname(change.path), { recursive: true })
    writeFileAtomic.sync(change.path, change.after ?? '', change.before === undefined ? { mode: 0o644 } : {})
  }
  writeManifest(req.svcHome, remember(manifest, token, plan))
  return { applied: true, plan }
}

/** Removes our entries (restoring untouched files byte for byte) and forgets them in the manifest. */
export function applyUninstall(req: UninstallRequest, token: string): ApplyResult {
  let manifest = readManifest(req.svcHome)
  const plan = planUninstall(req)
  if (plan.token !== token) {
    if (isRepeat(manifest, token)) return { applied: false, plan }
    throw new PlanConflictError('the harness configs changed since this plan was made; plan again and review the new diff')
  }
  for (const change of plan.changes) {
    const record = manifest.files[change.path]
    if (change.after === undefined) rmSync(change.path, { force: true })
    else if (change.after !== change.before) writeFileAtomic.sync(change.path, change.after)
    for (const dir of [...(record?.createdDirs ?? [])].reverse()) {
      if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir)
    }
    if (record?.backup) rmSync(record.backup, { force: true })
    const files = { ...manifest.files }
    delete files[change.path]
    manifest = { ...manifest, files }
    writeManifest(req.svcHome, manifest)
  }
  writeManifest(req.svcHome, remember(manifest, token, plan))
  return { applied: true, plan }
}
