/**
 * Install and uninstall plans. A plan is computed from the files on disk and the request alone, writes
 * nothing, and carries a token (a hash of every file's before/after) that `apply` checks, so a plan the
 * user reviewed is exactly what gets written.
 */
import { isDeepStrictEqual } from 'node:util'
import { createPatch } from 'diff'
import { readText, RefusalError, sha256 } from '../../core/index.ts'
import type { HarnessDefinition, HarnessEnv, HarnessScope, InstallContext, InstallEntry, SandboxFacts } from '../../harness-contract/index.ts'
import { appendToArray, deleteAt, indexOfEqual, parseJsoncStrict, removeAt, setAt, valueAt } from './jsonc-edit.ts'
import { backupPath, readManifest } from './manifest.ts'
import type { ManifestEntry, ManifestFile } from './manifest.ts'
import { appendBlock, appendedText, assertToml, prependBlock, removeBlock } from './toml-edit.ts'
import { schemaProblems } from './validate.ts'

export interface InstallRequest {
  readonly harnesses: readonly HarnessDefinition[]
  readonly scope: HarnessScope
  readonly env: HarnessEnv
  readonly svcHome: string
  readonly daemonUrl: string
  readonly failOpen: boolean
  readonly transport: 'command' | 'http'
  /** A separated daemon's hook socket (cli/service/hook-route.ts): command hooks call it, never the TCP port. */
  readonly hookSocket?: string
  /** `svc install --sandbox`: also configure each harness's own OS sandbox (`sandboxPlan`). */
  readonly sandbox?: SandboxFacts
}

export interface FileChange {
  readonly path: string
  readonly format: 'jsonc' | 'toml'
  readonly scope: HarnessScope
  readonly harnesses: readonly string[]
  /** undefined: the file does not exist (before) / is deleted (after). */
  readonly before?: string
  readonly after?: string
  readonly diff: string
  readonly entries: readonly ManifestEntry[]
}

export interface Plan {
  readonly kind: 'install' | 'uninstall'
  readonly token: string
  readonly installId: string
  readonly changes: readonly FileChange[]
  readonly notes: readonly string[]
  readonly warnings: readonly string[]
}

/** A plan that can no longer be applied (files changed since it was made). */
export class PlanConflictError extends RefusalError {
  constructor(message: string) {
    super(409, 'conflict', message)
  }
}

/** The marker id of this control plane's entries. */
function installIdFor(svcHome: string): string {
  return readManifest(svcHome).installId
}

function tokenOf(kind: Plan['kind'], installId: string, changes: readonly FileChange[]): string {
  const digest = changes.map((c) => [c.path, c.before === undefined ? '-' : sha256(c.before), c.after === undefined ? '-' : sha256(c.after)])
  return `${kind}-${sha256(JSON.stringify([kind, installId, digest])).slice(0, 32)}`
}

function diffOf(path: string, before: string | undefined, after: string | undefined): string {
  return createPatch(path, before ?? '', after ?? '', before === undefined ? '(new file)' : 'current', after === undefined ? '(deleted)' : 'after svc')
}

function checkSchema(path: string, schema: string | undefined, before: string | undefined, after: string, warnings: string[]): void {
  if (!schema) return
  const problems = schemaProblems(schema, parseJsoncStrict(after, path))
  if (problems.length === 0) return
  const beforeProblems = before === undefined ? [] : schemaProblems(schema, parseJsoncStrict(before, path))
  // A file that already failed its schema (a newer harness version, a user key) is not ours to judge.
  if (beforeProblems.length > 0) warnings.push(`${path} did not validate against its schema before the edit either: ${beforeProblems.join('; ')}`)
  else throw new Error(`${path} would not validate against its harness schema: ${problems.join('; ')}`)
}

/**
 * The daemon URL hooks are given: a literal loopback address, never a name (`localhost` may resolve to
 * [::1] first, where an impostor can listen while the daemon holds 127.0.0.1). `localhost` becomes 127.0.0.1.
 */
export function literalLoopbackUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error(`the daemon URL "${url}" is not a URL`)
  }
  const host = parsed.hostname === 'localhost' ? '127.0.0.1' : parsed.hostname
  if (parsed.protocol !== 'http:' || !['127.0.0.1', '[::1]'].includes(host) || parsed.username || parsed.password || parsed.pathname !== '/' || parsed.search || parsed.hash) {
    throw new Error(`the daemon URL "${url}" must be http://127.0.0.1:PORT or http://[::1]:PORT: hooks only talk to a literal loopback address`)
  }
  return `http://${host}:${parsed.port || '80'}`
}

/** The sandbox entries of a harness, or a plan that only says why there are none. */
function sandboxPlanOf(harness: HarnessDefinition, ctx: InstallContext & { readonly sandbox: SandboxFacts }) {
  if (!harness.sandboxPlan) return { entries: [], notes: ['svc does not configure a sandbox for this harness'] }
  return harness.sandboxPlan(ctx)
}

/** Computes the install plan: our entries appended to each harness config; skips what is already there. */
export function planInstall(req: InstallRequest): Plan {
  const installId = installIdFor(req.svcHome)
  const notes: string[] = []
  const warnings: string[] = []
  const byFile = new Map<string, { harness: HarnessDefinition; entries: (InstallEntry & { layer?: 'sandbox' })[] }>()
  const ctx: InstallContext = {
    ...req.env,
    scope: req.scope,
    shimPath: `${req.svcHome}/bin/svc-hook`,
    daemonUrl: literalLoopbackUrl(req.daemonUrl),
    ...(req.hookSocket ? { hookSocket: req.hookSocket } : {}),
    installId,
    failOpen: req.failOpen,
    transport: req.transport,
    readText,
    readConfig: (path) => {
      const text = readText(path)
      return text === undefined ? undefined : valueAt(text, [])
    },
  }
  for (const harness of req.harnesses) {
    const plan = harness.installPlan(ctx)
    const sandbox = req.sandbox ? sandboxPlanOf(harness, { ...ctx, sandbox: req.sandbox }) : { entries: [], notes: [] }
    notes.push(...[...plan.notes, ...sandbox.notes].map((n) => `${harness.displayName}: ${n}`))
    for (const entry of [...plan.entries, ...sandbox.entries.map((e) => ({ ...e, layer: 'sandbox' as const }))]) {
      const slot = byFile.get(entry.file) ?? { harness, entries: [] }
      slot.entries.push(entry)
      byFile.set(entry.file, slot)
    }
  }
  const changes: FileChange[] = []
  const manifest = readManifest(req.svcHome)
  for (const [path, { harness, entries }] of byFile) {
    const previous = manifest.files[path]
    const before = readText(path)
    if (before !== undefined && entries[0]?.format === 'jsonc') parseJsoncStrict(before, path)
    let text = before ?? (entries[0]?.format === 'jsonc' ? `${JSON.stringify(entries[0].seed ?? {}, null, 2)}\n` : '')
    const written: ManifestEntry[] = []
    for (const entry of entries) {
      const layer = entry.layer ? { layer: entry.layer } : {}
      if (entry.format === 'toml') {
        if (text.includes(entry.text)) continue
        // An earlier svc block of this harness (another daemon URL, an older shim line) is replaced.
        for (const old of previous?.entries ?? []) {
          if (old.format === 'toml' && old.harness === harness.id && old.block === entry.block) text = removeBlock(text, old.text) ?? text
        }
        const next = entry.position === 'start' ? prependBlock(text, entry.text) : appendBlock(text, entry.text)
        const added = entry.position === 'start' ? next.slice(0, next.length - text.length) : appendedText(text, next)
        written.push({ harness: harness.id, format: 'toml', text: added, ...(entry.block ? { block: entry.block } : {}), ...layer })
        text = next
        continue
      }
      if (entry.mode === 'set') {
        const current = valueAt(text, entry.pointer)
        if (isDeepStrictEqual(current, entry.value)) continue
        // Re-setting a setting svc set before keeps the value from before svc, which uninstall restores.
        const earlier = previous?.entries.find((e) => e.format === 'jsonc' && e.op === 'set' && isDeepStrictEqual(e.pointer, entry.pointer))
        let prior: { previous?: unknown } = current === undefined ? {} : { previous: current }
        if (earlier?.format === 'jsonc') prior = 'previous' in earlier ? { previous: earlier.previous } : {}
        text = setAt(text, entry.pointer, entry.value)
        written.push({ harness: harness.id, format: 'jsonc', op: 'set', pointer: entry.pointer, value: entry.value, ...prior, ...layer })
        continue
      }
      if (indexOfEqual(text, entry.pointer, entry.value) >= 0) continue
      // An earlier svc entry here that differs (another daemon URL, an older shim line, --fail-open changed) is
      // replaced, so re-running `svc install` refreshes it; entries this plan just wrote are kept.
      const current = valueAt(text, entry.pointer)
      const fresh = written.filter((w) => w.format === 'jsonc' && isDeepStrictEqual(w.pointer, entry.pointer)).map((w) => (w as { value: unknown }).value)
      if (Array.isArray(current)) {
        for (let i = current.length - 1; i >= 0; i--) {
          if (harness.isOurs(current[i], installId) && !fresh.some((v) => isDeepStrictEqual(v, current[i]))) text = removeAt(text, entry.pointer, i)
        }
      }
      text = appendToArray(text, entry.pointer, entry.value)
      written.push({ harness: harness.id, format: 'jsonc', pointer: entry.pointer, value: entry.value, ...layer })
    }
    if (written.length === 0) continue
    if (entries[0]?.format === 'toml') assertToml(text, path)
    else checkSchema(path, entries[0]?.schema, before, text, warnings)
    changes.push({ path, format: entries[0]!.format, scope: req.scope, harnesses: [harness.id], before, after: text, diff: diffOf(path, before, text), entries: written })
  }
  return { kind: 'install', token: tokenOf('install', installId, changes), installId, changes, notes, warnings }
}

export interface UninstallRequest {
  readonly svcHome: string
  /** Harness definitions by id (for recognising our entries); other manifest files are kept. */
  readonly harnesses: readonly HarnessDefinition[]
  readonly scope?: HarnessScope
}

/** What removing our entries from one file gives, or a warning when we no longer own what is there. */
function removalFor(path: string, record: ManifestFile, defs: ReadonlyMap<string, HarnessDefinition>, installId: string, svcHome: string, warnings: string[]): string | undefined {
  const current = readText(path)
  if (current === undefined) return undefined
  // Untouched since our apply: restore the original bytes exactly.
  if (sha256(current) === record.installedHash) return record.createdFile ? undefined : (readText(record.backup ?? backupPath(svcHome, path)) ?? current)
  let text = current
  for (const entry of record.entries) {
    if (entry.format === 'jsonc' && entry.op === 'set') {
      if (!isDeepStrictEqual(valueAt(text, entry.pointer), entry.value)) {
        warnings.push(`${path}: /${entry.pointer.join('/')} was changed since install; left it alone`)
        continue
      }
      text = 'previous' in entry ? setAt(text, entry.pointer, entry.previous) : deleteAt(text, entry.pointer)
      continue
    }
    if (entry.format === 'toml') {
      const next = removeBlock(text, entry.text)
      if (next === undefined) warnings.push(`${path}: the svc block was edited since install; left it alone — remove it by hand if you want it gone`)
      else text = next
      continue
    }
    const index = indexOfEqual(text, entry.pointer, entry.value)
    if (index >= 0) {
      text = removeAt(text, entry.pointer, index)
      continue
    }
    const array = valueAt(text, entry.pointer)
    const def = defs.get(entry.harness)
    const edited = Array.isArray(array) && def !== undefined && array.some((item) => def.isOurs(item, installId))
    warnings.push(
      edited
        ? `${path}: the svc entry at /${entry.pointer.join('/')} was edited since install; left it alone — remove it by hand if you want it gone`
        : `${path}: the svc entry at /${entry.pointer.join('/')} is already gone`,
    )
  }
  if (record.createdFile && record.format === 'jsonc') {
    const value = valueAt(text, [])
    const leftovers = value && typeof value === 'object' ? Object.keys(value).filter((k) => k !== 'version') : []
    if (leftovers.length === 0) return undefined
  }
  return text
}

/** Computes the uninstall plan from the manifest: only entries this control plane wrote. */
export function planUninstall(req: UninstallRequest): Plan {
  const manifest = readManifest(req.svcHome)
  const defs = new Map(req.harnesses.map((h) => [h.id, h]))
  const warnings: string[] = []
  const changes: FileChange[] = []
  for (const [path, record] of Object.entries(manifest.files)) {
    if (req.scope && record.scope !== req.scope) continue
    if (!record.harnesses.some((id) => defs.has(id))) continue
    const before = readText(path)
    if (before === undefined) warnings.push(`${path} no longer exists; nothing to remove`)
    const after = removalFor(path, record, defs, manifest.installId, req.svcHome, warnings)
    changes.push({
      path,
      format: record.format,
      scope: record.scope,
      harnesses: record.harnesses,
      before,
      after,
      diff: before === after ? '' : diffOf(path, before, after),
      entries: record.entries,
    })
  }
  return { kind: 'uninstall', token: tokenOf('uninstall', manifest.installId, changes), installId: manifest.installId, changes, notes: [], warnings }
}
