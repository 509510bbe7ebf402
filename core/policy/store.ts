/**
 * The live policy: every layer's files, reloaded on change (fs.watch plus a slow stat poll as a safety
 * net). A bad file is reported and its last good version stays in force. Gates are resolved per call:
 * the static layers once per reload, the group layer by the session's user and groups, the repo layer
 * from `.svc.yaml` at the git root of the call's cwd.
 */
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Logger } from 'pino'
import { EngineError, ERR } from '../errors.ts'
import { canonicalSha256 } from '../hash.ts'
import type { EvalContext, EvalRequest, LayerName } from '../types.ts'
import type { GateCompiler } from './compile.ts'
import type { CompiledGate } from './compiled.ts'
import type { DisableSealer } from './disable-seal.ts'
import { PolicyFile, type FileProblem, type LoadedPolicy } from './policy-file.ts'
import { RepoRootFinder } from './repo-root.ts'
import { unusableBundleGate } from './unusable-bundle.ts'
import { drain, runYielding, type Steps } from './steps.ts'
import type { ParseCache } from './parse-cache.ts'
import { isBundleSource, repoSource, staticSources, type PackFloor, type PolicySource } from './sources.ts'
import type { LayerGates, PolicyFileStatus, PolicyWarning } from './views.ts'

/** A repo file's active gates and the ids its valid seals disable, computed once per loaded version. */
interface RepoGates {
  readonly active: readonly CompiledGate[]
  readonly disabled: ReadonlySet<string>
}

const POLL_MS = 1000
const REPO_RECHECK_MS = 1000
/** At most this many directories (cwd and the parents of touched paths) are probed for repositories per call. */
const MAX_REPO_PROBES = 16
/** Distinct (groups, user) combinations whose group-layer lists are kept. */
const MAX_GROUP_LISTS = 256

export interface PolicyStoreOptions {
  readonly policiesDir: string
  readonly home: string
  readonly compiler: GateCompiler
  readonly sealer: DisableSealer
  readonly log: Logger
  /** Parsed policy files kept between processes (see parse-cache.ts); none in tests that build stores directly. */
  readonly parseCache?: ParseCache
  /** Called after a reload changed the policy in force (the engine ledgers it with both hashes). */
  readonly onReload?: (hash: string, previousHash: string) => void
  readonly packFloor?: ReadonlyMap<string, PackFloor>
}

/** The policy in force: loads every layer, reloads on change, and hands the engine the gates that apply to a call. */
export class PolicyStore {
  readonly #opts: PolicyStoreOptions
  #files: PolicyFile[] = []
  #static: LayerGates[] = []
  #disabled: ReadonlySet<string> = new Set<string>()
  /** Ids of gates a signed bundle brought: the managed floor, which no seal outside the bundle disables. */
  #floorIds: ReadonlySet<string> = new Set()
  /** The deny-everything floor gate while a signed bundle's file does not compile (see unusable-bundle.ts). */
  #unusable?: CompiledGate
  #warnings: PolicyWarning[] = []
  #hash = ''
  readonly #repoFiles = new Map<string, { file: PolicyFile; checkedAt: number }>()
  readonly #repoRoots = new RepoRootFinder()
  readonly #repoGates = new WeakMap<LoadedPolicy, RepoGates>()
  /** Group-layer gate lists by the session's groups and user (cleared on reload). */
  #groupCache = new Map<string, readonly CompiledGate[]>()
  #watchers: FSWatcher[] = []
  #timer?: NodeJS.Timeout
  #debounce?: NodeJS.Timeout
  #running?: Promise<boolean>
  #again = false

  constructor(opts: PolicyStoreOptions) {
    this.#opts = opts
  }

  /**
   * Loads every static file; at boot any bad file is fatal (validate before serving), except a signed
   * bundle's: its owner, not this machine's user, must fix it, so it becomes a deny-everything floor gate.
   */
  load(now: number): void {
    this.refresh(now)
    const bad = this.#files.find((f) => f.problem && !isBundleSource(f.src.source))
    if (bad?.problem) throw new EngineError(ERR.POLICY_INVALID, bad.problem.message, { loc: bad.problem.loc })
  }

  /** Re-stats every static file and recompiles what changed. Returns true when the policy in force changed. */
  refresh(now: number): boolean {
    return drain(this.#refreshSteps(now))
  }

  /**
   * refresh off the request path: compiles in slices between requests (a 10,000-gate file does not stop
   * the daemon answering; the policy in force answers until the new one swaps in). Calls made while one
   * runs are folded into one more run after it.
   */
  refreshInBackground(): Promise<boolean> {
    if (this.#running) {
      this.#again = true
      return this.#running
    }
    const run = async (): Promise<boolean> => {
      let changed = false
      do {
        this.#again = false
        changed = (await runYielding(this.#refreshSteps(Date.now()))) || changed
      } while (this.#again)
      return changed
    }
    this.#running = run().finally(() => {
      this.#running = undefined
    })
    return this.#running
  }

  *#refreshSteps(now: number): Steps<boolean> {
    const known = new Map(this.#files.map((f) => [f.src.path, f]))
    const reuse = (src: PolicySource, prior = known.get(src.path)) => (prior?.src.severity === src.severity ? prior : undefined) // a pack's new severity compiles afresh
    const files = staticSources(this.#opts.policiesDir, this.#opts.home, this.#opts.packFloor).map((src) => reuse(src) ?? new PolicyFile(src, this.#opts.parseCache))
    let changed = files.length !== this.#files.length
    for (const file of files) {
      const hadProblem = file.problem?.message
      if (yield* file.refreshSteps(this.#opts.compiler, now)) changed = true
      if (file.problem && file.problem.message !== hadProblem) {
        this.#opts.log.error(
          { file: file.src.path, loc: file.problem.loc, code: file.problem.code },
          `policy file rejected, last good version stays in force: ${file.problem.message}`,
        )
      }
    }
    this.#files = files
    if (changed) this.#rebuild()
    return changed
  }

  /**
   * Starts watching policy locations; changes are picked up within about a second. `$SVC_HOME` is watched
   * without recursion and filtered by file name, because the ledger's WAL changes there on every append.
   */
  watch(): void {
    const onChange = () => {
      clearTimeout(this.#debounce)
      this.#debounce = setTimeout(() => this.#safeRefresh(), 50)
    }
    const homeFiles = new Set(
      staticSources(this.#opts.policiesDir, this.#opts.home, this.#opts.packFloor)
        .filter((s) => s.layer !== 'registry' && !s.path.startsWith(this.#opts.policiesDir))
        .map((s) => basename(s.path)),
    )
    const targets: [string, boolean, (name: string | null) => boolean][] = [
      [this.#opts.policiesDir, false, () => true],
      [this.#opts.home, false, (name) => name === null || homeFiles.has(name) || name === 'registry'],
      [join(this.#opts.home, 'registry'), true, () => true],
    ]
    for (const [dir, recursive, relevant] of targets) {
      try {
        this.#watchers.push(watch(dir, { recursive, persistent: false }, (_event, name) => relevant(name) && onChange()))
      } catch {
        // directory may not exist yet; the poll below still notices it
      }
    }
    this.#timer = setInterval(() => this.#safeRefresh(), POLL_MS)
    this.#timer.unref()
  }

  close(): void {
    for (const w of this.#watchers) w.close()
    this.#watchers = []
    clearInterval(this.#timer)
    clearTimeout(this.#debounce)
  }

  #safeRefresh(): void {
    const previous = this.#hash
    this.refreshInBackground().then(
      (changed) => {
        if (!changed) return
        this.#opts.log.info({ policy_hash: this.#hash }, 'policy reloaded')
        if (this.#hash !== previous) this.#opts.onReload?.(this.#hash, previous)
      },
      (err: unknown) => this.#opts.log.error({ err }, 'policy refresh failed'),
    )
  }

  /** Gates that apply to one call, in layer order, disabled gates removed. */
  gatesFor(request: EvalRequest, ctx: EvalContext): LayerGates[] {
    const layers = [...this.#static]
    const group = this.#groupGates(ctx)
    if (group.length > 0)
      layers.splice(
        layers.findIndex((l) => l.layer === 'user'),
        0,
        { layer: 'group', gates: group },
      )
    let out: LayerGates[] = layers
    for (const { active, disabled } of this.#repoRootsFor(request, ctx.now).flatMap((root) => this.#repoLayer(root, ctx.now))) {
      const repoLayer: LayerGates = { layer: 'repo', gates: active }
      // A repo's sealed disables apply to every layer before it and to its own gates.
      out = disabled.size === 0 ? [...out, repoLayer] : [...out, repoLayer].map((l) => ({ ...l, exclude: l.exclude ? new Set([...l.exclude, ...disabled]) : disabled }))
    }
    return out
  }

  /** Every repo layer a call in `cwd` meets (innermost first): its active gates and the ids its valid seals disable. */
  repoLayers(cwd: string | undefined, now: number): RepoGates[] {
    return this.#repoRoots.findAll(cwd, now).flatMap((root) => this.#repoLayer(root, now))
  }

  #repoLayer(root: string, now: number): RepoGates[] {
    const repo = this.#repoFile(root, now)
    const gates = repo.good && this.#repoGatesOf(repo.good, repo.src.path)
    return gates ? [{ active: gates.active, disabled: this.#unlocked(gates.disabled) }] : []
  }

  #repoGatesOf(good: LoadedPolicy, path: string): RepoGates {
    let entry = this.#repoGates.get(good)
    if (!entry) this.#repoGates.set(good, (entry = { active: good.gates.filter(isActive), disabled: this.#sealedDisables(good.gates, path, []) }))
    return entry
  }

  /**
   * The repositories a call concerns: the git roots above its cwd and above every path it touches (nested
   * ones included), so neither `cd /tmp` nor a `git init` in a subdirectory steps out of a repo's policy.
   * Extra repo layers can only add denials (deny-overrides).
   */
  #repoRootsFor(request: EvalRequest, now: number): string[] {
    const dirs = new Set<string>()
    if (request.cwd) dirs.add(request.cwd)
    for (const path of request.paths) {
      if (dirs.size > MAX_REPO_PROBES) break
      dirs.add(dirname(path))
    }
    const roots = new Set<string>()
    for (const dir of dirs) for (const root of this.#repoRoots.findAll(dir, now)) roots.add(root)
    return [...roots]
  }

  /** The repo layer file for a cwd (loaded or re-checked at most once a second). */
  repoPolicy(cwd: string | undefined, now: number): PolicyFile | undefined {
    const root = this.#repoRoots.find(cwd, now)
    return root === undefined ? undefined : this.#repoFile(root, now)
  }

  /** Re-reads the static files now and the repo file of `cwd` at its next use (after the daemon wrote one itself). */
  reloadNow(cwd: string | undefined, now: number): void {
    this.refresh(now)
    const root = this.#repoRoots.find(cwd, now)
    const entry = root === undefined ? undefined : this.#repoFiles.get(root)
    if (entry) entry.checkedAt = 0
  }

  /** Gate ids a repo file disables with a valid false-positive seal (what calls in that repo no longer see). */
  repoDisables(file: PolicyFile): ReadonlySet<string> {
    return file.good ? this.#sealedDisables(file.good.gates, file.src.path, []) : new Set()
  }

  #repoFile(root: string, now: number): PolicyFile {
    let entry = this.#repoFiles.get(root)
    if (!entry) this.#repoFiles.set(root, (entry = { file: new PolicyFile(repoSource(root)), checkedAt: 0 }))
    if (now - entry.checkedAt >= REPO_RECHECK_MS) {
      entry.checkedAt = now
      const before = entry.file.problem?.message
      entry.file.refresh(this.#opts.compiler, now)
      if (entry.file.problem && entry.file.problem.message !== before) {
        this.#opts.log.error({ file: entry.file.src.path, loc: entry.file.problem.loc }, `repo policy rejected: ${entry.file.problem.message}`)
      }
    }
    return entry.file
  }

  #groupGates(ctx: EvalContext): readonly CompiledGate[] {
    const groupFiles = this.#files.filter((f) => f.src.layer === 'group' && f.good).map((f) => f.good!)
    const session = ctx.session
    if (groupFiles.length === 0 || !session) return []
    const key = JSON.stringify([session.groups, session.userId ?? null])
    let gates = this.#groupCache.get(key)
    if (gates) return gates
    const out: CompiledGate[] = []
    for (const group of groupFiles) {
      for (const name of session.groups) out.push(...(group.groups.get(name) ?? []))
      if (session.userId) out.push(...(group.users.get(session.userId) ?? []))
    }
    gates = out.filter((g) => isActive(g) && !this.#disabled.has(g.id))
    if (this.#groupCache.size >= MAX_GROUP_LISTS) this.#groupCache.clear()
    this.#groupCache.set(key, gates)
    return gates
  }

  #rebuild(): void {
    const warnings: PolicyWarning[] = []
    const broken = this.#files.find((f) => f.problem && !f.good && isBundleSource(f.src.source))
    this.#unusable = broken ? unusableBundleGate(broken.src.path, broken.problem!) : undefined
    const all = this.allGates()
    this.#floorIds = new Set(all.filter((g) => isBundleSource(g.source)).map((g) => g.id))
    this.#disabled = this.#unlocked(this.#sealedDisables(all, undefined, warnings))
    this.#groupCache = new Map()
    const byLayer = new Map<LayerName, CompiledGate[]>(this.#unusable ? [['daemon', [this.#unusable]]] : [])
    for (const file of this.#files) {
      if (!file.good || file.src.kind === 'group') continue
      const list = byLayer.get(file.src.layer) ?? []
      list.push(...file.good.gates.filter((g) => isActive(g) && !this.#disabled.has(g.id)))
      byLayer.set(file.src.layer, list)
    }
    this.#static = (['daemon', 'registry', 'user'] as const).map((layer) => ({ layer, gates: byLayer.get(layer) ?? [] }))
    this.#warnings = warnings
    for (const w of warnings) this.#opts.log.warn({ file: w.file, gate: w.gateId }, w.message)
    const material = this.#files
      .filter((f) => f.good)
      .map((f) => ({ source: f.src.source, path: f.src.path, gates: f.good!.gates.map((g) => g.fingerprint), content: f.good!.contentHash }))
    if (this.#unusable) material.unshift({ source: 'bundle', path: this.#unusable.loc.file, gates: [this.#unusable.fingerprint], content: '' })
    this.#hash = canonicalSha256(material)
  }

  /** Disabled ids minus the floor's: a bundle gate stays on whatever a user or repo file seals. */
  #unlocked(disabled: ReadonlySet<string>): ReadonlySet<string> {
    if (disabled.size === 0 || this.#floorIds.size === 0) return disabled
    return new Set([...disabled].filter((id) => !this.#floorIds.has(id)))
  }

  /**
   * Compiles files not in force yet (a signed bundle before it is activated) off the request path, the
   * way a reload would: the first problem found, or undefined when every file compiles.
   */
  async checkCompiles(sources: readonly PolicySource[], now: number): Promise<FileProblem | undefined> {
    for (const src of sources) {
      // With the parse cache: the reload that activates these very files then skips parsing them again.
      const file = new PolicyFile(src, this.#opts.parseCache)
      await runYielding(file.refreshSteps(this.#opts.compiler, now))
      if (file.problem) return file.problem
    }
    return undefined
  }

  // Gate ids disabled by a valid false-positive seal whose replacement is present beside it.
  #sealedDisables(gates: readonly CompiledGate[], file: string | undefined, warnings: PolicyWarning[]): Set<string> {
    const ids = new Set(gates.map((g) => g.id))
    const out = new Set<string>()
    for (const g of gates) {
      if (!g.disabled) continue
      const by = g.disabledBy
      const valid =
        by !== undefined &&
        by.replacement_id !== g.id &&
        ids.has(by.replacement_id) &&
        this.#opts.sealer.verify({ gate_id: g.id, file: g.loc.file, event_seq: by.event_seq, at: by.at, replacement_id: by.replacement_id, note: by.note }, by.seal)
      if (valid) out.add(g.id)
      else warnings.push({ file: file ?? g.loc.file, gateId: g.id, message: `gate "${g.id}" says disabled: true without a valid false-positive replacement seal; it stays active` })
    }
    return out
  }

  get hash(): string {
    return this.#hash
  }

  get warnings(): readonly PolicyWarning[] {
    return this.#warnings
  }

  /** Every static gate (active and disabled) with its file, for views. */
  allGates(): CompiledGate[] {
    const files = this.#files.flatMap((f) => (f.good ? [...f.good.gates, ...[...f.good.groups.values(), ...f.good.users.values()].flat()] : []))
    return this.#unusable ? [this.#unusable, ...files] : files
  }

  /** True when a valid false-positive seal disables this gate's id. */
  isDisabled(gate: CompiledGate): boolean {
    return this.#disabled.has(gate.id)
  }

  files(): PolicyFileStatus[] {
    return this.#files.map((f) => ({
      path: f.src.path,
      layer: f.src.layer,
      source: f.src.source,
      status: f.problem ? 'error' : f.good ? 'ok' : 'absent',
      mode: f.good?.mode,
      gates: f.good ? f.good.gates.length + [...f.good.groups.values(), ...f.good.users.values()].reduce((n, l) => n + l.length, 0) : 0,
      error: f.problem,
    }))
  }
}

// A gate runs unless it is a bare disable marker; an unsealed `disabled: true` on a real gate is ignored.
function isActive(gate: CompiledGate): boolean {
  return gate.node !== undefined
}
