/**
 * What `svc status` and `svc doctor` know about where svc stands: the daemon (reachable, URL, version, mode),
 * the session harness hooks use (signer, expiry, renewal), the hooks installed per harness (entries still in
 * the config, the daemon URL they call, the shim they run), policy files, and the ledger. Each fact that
 * leaves protection off is a Problem; doctor offers fixes for the ones it can repair. Light imports only:
 * status must answer in well under a second.
 */
import { daemonSeparation, type Separation } from './separation.ts'
import { readFileSync, statSync } from 'node:fs'
import { Agent, get as httpGet } from 'node:http'
import { join } from 'node:path'
import { sessionAdvice } from '../../core/index.ts'
import type { SignerKind } from '../../core/types.ts'
import type { HarnessDefinition } from '../../harness-contract/index.ts'
import { harnessPlugins } from '../../harnesses/index.ts'
import { entriesOf, loadInstallChecks, shimPath, shimState, type Manifest } from '../../plugins/installer/index.ts'
import { SHIPPED_POLICIES_DIR } from '../paths.ts'
import { listPacks, managedPackFloor, type PackView } from '../policy/packs.ts'
import { sandboxLayer, type SandboxLayer } from './layers.ts'
import { projectHookSwitches, userHookSwitches, type HookSwitch } from './hook-switches.ts'

// A JSONC parser: this module loads only for `svc status` and `svc doctor`, which read harness configs.
const { entryPresent } = await loadInstallChecks()

export type FixKind = 'refresh-shim' | 'reinstall-hooks' | 'trust-hooks'

export interface Problem {
  readonly what: string
  /** What to do about it, as the user would type it. */
  readonly hint: string
  /** A repair doctor can perform itself. */
  readonly fix?: { readonly kind: FixKind; readonly harnesses?: readonly string[]; readonly scope?: 'user' | 'repo' }
}

export interface HarnessHooks {
  readonly harness: string
  readonly scope: 'user' | 'repo'
  readonly file: string
  readonly entries: number
  readonly missing: number
  /** Daemon URLs the installed entries call (`--url=` of the shim command, or the HTTP hook URL). */
  readonly urls: readonly string[]
  /** The entries run the shim (command hooks), rather than calling the daemon natively over HTTP. */
  readonly usesShim: boolean
}

export interface HarnessSandbox extends Partial<SandboxLayer> {
  readonly harness: string
  /** `on`: every sandbox setting svc wrote is in place; `degraded`: some were changed; `off`: none written. */
  readonly state: 'on' | 'degraded' | 'off'
  readonly files: readonly string[]
  readonly settings: number
  readonly missing: number
}

export interface BundleView {
  readonly configured: boolean
  readonly url?: string
  readonly floor: { readonly mode?: string }
  readonly active?: { readonly revision: number; readonly sha256: string; readonly keyid: string; readonly expired: boolean; readonly expires?: string }
  readonly last_check?: { readonly at: string; readonly outcome: string; readonly reason?: string }
  readonly last_refusal?: { readonly at: string; readonly reason?: string; readonly revision?: number }
}

export interface StatusReport {
  readonly url: string
  readonly home: string
  readonly daemon: { readonly reachable: boolean; readonly version?: string; readonly error?: string }
  /** Whether the daemon runs as another account than the caller (the OS keeps the agent's code away from it). */
  readonly separation?: Separation
  readonly mode?: string
  readonly session?: {
    readonly state: 'active' | 'expired' | 'none'
    readonly id?: string
    readonly signer?: string
    readonly expiresAt?: string
    readonly idleExpiresAt?: string
    readonly banner?: string
    readonly renewer?: { readonly tier: string; readonly seenAt: string; readonly live: boolean; readonly waiting?: 'code' }
  }
  readonly hooks: readonly HarnessHooks[]
  /** The second layer per harness with hooks: its own OS sandbox as `svc install --sandbox` configured it. */
  readonly sandbox: readonly HarnessSandbox[]
  readonly shim: 'current' | 'stale' | 'missing'
  /** The signed policy bundle (GET /v1/policy/bundle), when a managed file configures one. */
  readonly bundle?: BundleView
  readonly policy?: { readonly status: string; readonly hash: string; readonly files: readonly { path: string; layer: string; status: string; gates?: number; error?: string }[] }
  readonly ledger?: { readonly treeSize: number; readonly checkpointSize?: number; readonly signer: string; readonly bytesOnDisk?: number }
  /** The shipped packs and their state (`svc policy packs`). */
  readonly packs: readonly PackView[]
  /** Settings that switch svc's hooks off (user configs, and the project layers of known project directories). */
  readonly switchedOff: readonly (HookSwitch & { readonly project?: string })[]
  /** Harness sessions whose tool calls ran without reaching svc's pre-tool hook (from the daemon). */
  readonly ungated: readonly UngatedSession[]
  readonly problems: readonly Problem[]
}

/** A harness session the daemon saw run tools it never gated (GET /v1/hooks/coverage). */
export interface UngatedSession {
  readonly harness: string
  readonly harness_session_id?: string
  readonly cwd?: string
  readonly ungated: number
  readonly gated: number
  readonly last_ungated_at: string
}

/** Where status looks besides the daemon: the user's home and environment, the directory it runs in, and the harnesses it knows. */
export interface StatusContext {
  readonly userHome?: string
  readonly vars?: Readonly<Record<string, string | undefined>>
  readonly cwd?: string
  /** The registered harnesses (default: `harnesses/index.ts`). */
  readonly harnesses?: readonly HarnessDefinition[]
}

/** The harnesses status and doctor know: the registered ones unless a caller names others. */
export function knownHarnesses(ctx: { readonly harnesses?: readonly HarnessDefinition[] } = {}): readonly HarnessDefinition[] {
  return ctx.harnesses ?? harnessPlugins.map((p) => p.harness)
}

const RENEWER_LIVE_MS = 60_000
const UNGATED_RECENT_MS = 60 * 60_000
const agent = new Agent({ keepAlive: true })

/** GET JSON with node:http: loading fetch (undici) costs more than everything else status does. */
function getJson<T>(url: string, timeoutMs = 2_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { timeout: timeoutMs, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 400) return reject(new Error(`HTTP ${res.statusCode}`))
        try {
          resolve(JSON.parse(body) as T)
        } catch {
          reject(new Error(`${url} answered with a body that is not JSON`))
        }
      })
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', reject)
  })
}

function readManifest(home: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(home, 'install', 'manifest.json'), 'utf8')) as Manifest
  } catch {
    return undefined
  }
}

const URL_IN_ENTRY = /--url=([^\s'"]+)|(https?:\/\/[^\s'"]+?)\/v1\/hooks\//g

/** Daemon URLs named by an installed entry. */
function urlsOf(value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return [...text.matchAll(URL_IN_ENTRY)].map((m) => (m[1] ?? m[2] ?? '').replace(/\\+$/, ''))
}

/** A config file's text, or undefined when it is gone or unreadable. */
function textOf(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Installed hooks per harness and file, from the install manifest checked against the files as they are. */
export function installedHooks(home: string): HarnessHooks[] {
  const manifest = readManifest(home)
  const out: HarnessHooks[] = []
  for (const [file, record] of Object.entries(manifest?.files ?? {})) {
    const text = textOf(file)
    for (const harness of record.harnesses) {
      const entries = record.entries.filter((e) => e.harness === harness && e.layer !== 'sandbox')
      if (entries.length === 0) continue
      const present = entries.filter((e) => text !== undefined && entryPresent(text, e))
      const urls = [...new Set(entries.flatMap((e) => urlsOf(e.format === 'toml' ? e.text : e.value)))]
      const usesShim = entries.some((e) => (e.format === 'toml' ? e.text : JSON.stringify(e.value)).includes('/bin/svc-hook'))
      out.push({ harness, scope: record.scope, file, entries: entries.length, missing: entries.length - present.length, urls, usesShim })
    }
  }
  return out
}

/** The sandbox layer per harness that has svc hooks or sandbox settings, from the manifest and the files. */
export function installedSandbox(home: string): HarnessSandbox[] {
  const byHarness = new Map<string, { files: string[]; settings: number; missing: number }>()
  for (const [file, record] of Object.entries(readManifest(home)?.files ?? {})) {
    const text = textOf(file)
    for (const harness of record.harnesses) {
      const slot = byHarness.get(harness) ?? { files: [], settings: 0, missing: 0 }
      const entries = record.entries.filter((e) => e.harness === harness && e.layer === 'sandbox')
      if (entries.length > 0) slot.files.push(file)
      slot.settings += entries.length
      slot.missing += entries.filter((e) => text === undefined || !entryPresent(text, e)).length
      byHarness.set(harness, slot)
    }
  }
  return [...byHarness].map(([harness, s]) => ({ harness, state: s.settings === 0 ? 'off' : s.missing > 0 ? 'degraded' : 'on', ...s }))
}

/** Gathers the report for the daemon at `url` and the state in `home`. */
export async function collectStatus(url: string, home: string, ctx: StatusContext = {}): Promise<StatusReport> {
  const problems: Problem[] = []
  let daemon: StatusReport['daemon']
  let mode: string | undefined
  let session: StatusReport['session']
  let policy: StatusReport['policy']
  let bundle: BundleView | undefined
  let ledger: StatusReport['ledger']
  let ungated: UngatedSession[] = []
  let projects: string[] = []
  try {
    const health = await getJson<{ version: string }>(`${url}/v1/health`)
    daemon = { reachable: true, version: health.version }
  } catch (err) {
    daemon = { reachable: false, error: (err as Error).message }
    problems.push({
      what: `the daemon at ${url} is not reachable (${daemon.error})`,
      hint: 'start it: `svc service install` (runs at login, restarts on failure) or `svc daemon`; another URL: --url or SVC_URL',
    })
  }
  if (daemon.reachable) {
    const [m, cur, view, root, coverage, bundled] = await Promise.allSettled([
      getJson<{ mode: string }>(`${url}/v1/mode`),
      getJson<{
        state: 'active' | 'expired' | 'none'
        session?: { session_id: string; signer: string; expires_at: string; idle_expires_at?: string; banner?: string }
        renewer?: { tier: string; seen_at: string; waiting?: 'code' }
        now: string
      }>(`${url}/v1/sessions/current`),
      getJson<{ status: string; policy_hash: string; files: { path: string; layer: string; status: string; gates?: number; error?: string }[] }>(`${url}/v1/policy/view`),
      getJson<{ tree_size: number; signer: string; checkpoint?: string }>(`${url}/v1/ledger/root`),
      getJson<{ sessions: (UngatedSession & { last_seen_at: string })[] }>(`${url}/v1/hooks/coverage`),
      getJson<BundleView>(`${url}/v1/policy/bundle`),
    ])
    if (bundled.status === 'fulfilled' && bundled.value.configured) {
      bundle = bundled.value
      if (!bundle.active)
        problems.push({
          what: `the managed file names a policy bundle (${bundle.url}) but none is active${bundle.last_refusal?.reason ? `: ${bundle.last_refusal.reason}` : bundle.last_check?.reason ? `: ${bundle.last_check.reason}` : ''}`,
          hint: 'ask whoever signs the bundle; `svc policy bundle verify <file> --key <pub>` says why a bundle is refused',
        })
      else if (bundle.active.expired)
        problems.push({
          what: `policy bundle revision ${bundle.active.revision} expired at ${bundle.active.expires}; it stays in force until a newer one is served`,
          hint: 'ask whoever signs the bundle for a new revision',
        })
    }
    if (coverage.status === 'fulfilled') {
      // A session that ran ungated within the last hour: older gaps stay in the ledger (`hook_bypassed` leaves).
      ungated = coverage.value.sessions.filter((x) => x.ungated > 0 && Date.now() - Date.parse(x.last_ungated_at) < UNGATED_RECENT_MS)
      projects = coverage.value.sessions.flatMap((x) => (x.cwd ? [x.cwd] : []))
    }
    if (m.status === 'fulfilled') mode = m.value.mode
    if (mode === 'monitor') problems.push({ what: 'the daemon is in monitor mode: denies are only recorded, every call is let through', hint: 'switch back: `svc mode firewall`' })
    if (cur.status === 'fulfilled') {
      const c = cur.value
      const renewer = c.renewer
        ? {
            tier: c.renewer.tier,
            seenAt: c.renewer.seen_at,
            live: Date.parse(c.now) - Date.parse(c.renewer.seen_at) < RENEWER_LIVE_MS,
            ...(c.renewer.waiting ? { waiting: c.renewer.waiting } : {}),
          }
        : undefined
      session = {
        state: c.state,
        id: c.session?.session_id,
        signer: c.session?.signer,
        expiresAt: c.session?.expires_at,
        idleExpiresAt: c.session?.idle_expires_at,
        banner: c.session?.banner,
        renewer,
      }
      const renewable = renewer?.live === true && renewer.tier !== 'totp'
      if (c.state !== 'active' && !renewable) {
        // The same advice a denied hook call carries, from the same state (core sessionAdvice).
        const current = c.session ? { id: c.session.session_id, signer: c.session.signer as SignerKind } : undefined
        const advice = sessionAdvice(
          current,
          c.renewer ? { tier: c.renewer.tier, seenAt: Date.parse(c.renewer.seen_at), ...(c.renewer.waiting ? { waiting: c.renewer.waiting } : {}) } : undefined,
          Date.parse(c.now),
        )
        problems.push({ what: `${advice.what}: every hook call is denied`, hint: advice.next })
      }
    }
    if (view.status === 'fulfilled') {
      policy = { status: view.value.status, hash: view.value.policy_hash, files: view.value.files }
      for (const f of view.value.files.filter((f) => f.status === 'error'))
        problems.push({
          what: `policy file ${f.path} does not load (${f.error ?? 'error'}); the daemon keeps its last good policy`,
          hint: `fix the file; \`svc explain\` shows what the daemon decides`,
        })
    }
    if (root.status === 'fulfilled') {
      const checkpointSize = root.value.checkpoint ? Number(/\n(\d+)\n/.exec(root.value.checkpoint)?.[1]) : undefined
      let bytesOnDisk: number | undefined
      try {
        bytesOnDisk = statSync(join(home, 'ledger.db')).size
      } catch {
        bytesOnDisk = undefined
      }
      ledger = {
        treeSize: root.value.tree_size,
        signer: root.value.signer,
        ...(checkpointSize === undefined || Number.isNaN(checkpointSize) ? {} : { checkpointSize }),
        ...(bytesOnDisk === undefined ? {} : { bytesOnDisk }),
      }
    }
  }

  agent.destroy()
  const hooks = installedHooks(home)
  const shim = shimState(home)
  if (hooks.length === 0) problems.push({ what: 'no harness has svc hooks installed', hint: 'run `svc install` (shows the diff first)' })
  for (const h of hooks.filter((h) => h.missing > 0)) {
    problems.push({
      what: `${h.harness}: ${h.missing} of ${h.entries} svc hook entr${h.entries === 1 ? 'y is' : 'ies are'} gone from ${h.file} (a harness update or an edit removed ${h.missing === 1 ? 'it' : 'them'})`,
      hint: `re-install: \`svc install --harness ${h.harness}${h.scope === 'repo' ? ' --scope repo' : ''}\``,
      fix: { kind: 'reinstall-hooks', harnesses: [h.harness], scope: h.scope },
    })
  }
  for (const h of hooks.filter((h) => h.urls.some((u) => u !== url))) {
    problems.push({
      what: `${h.harness}: the hooks in ${h.file} call ${h.urls.join(', ')}, not the daemon URL ${url}`,
      hint: `re-install with the current URL: \`svc install --harness ${h.harness}${h.scope === 'repo' ? ' --scope repo' : ''} --url ${url}\``,
      fix: { kind: 'reinstall-hooks', harnesses: [h.harness], scope: h.scope },
    })
  }
  const manifest = readManifest(home)
  const sandbox = installedSandbox(home).map((sb) => ({
    ...sb,
    ...sandboxLayer(
      sb.state,
      knownHarnesses(ctx).find((h) => h.id === sb.harness),
      manifest,
    ),
  }))
  for (const sb of sandbox.filter((x) => x.state === 'degraded')) {
    problems.push({
      what: `${sb.harness}: ${sb.missing} of ${sb.settings} sandbox settings svc wrote were changed or removed in ${sb.files.join(', ')}: the second layer is weakened`,
      hint: `re-apply: \`svc install --sandbox --harness ${sb.harness}\` (add --system for managed settings)`,
    })
  }
  if (hooks.some((h) => h.usesShim) && shim !== 'current') {
    problems.push({
      what: `the hook shim ${shimPath(home)} is ${shim}${shim === 'stale' ? ' (from another svc version, or edited)' : ''}: hooks that run it ${shim === 'missing' ? 'fail' : 'may misbehave'}`,
      hint: 're-run `svc install` to refresh it',
      fix: { kind: 'refresh-shim' },
    })
  }
  // A harness that runs only hooks the user trusted: its quick offline check (doctor asks the harness itself).
  for (const h of knownHarnesses(ctx).filter((d) => d.trust && hooks.some((x) => x.harness === d.id))) {
    problems.push(...h.trust!.check({ svcHome: home, env: ctx.vars ?? {}, cwd: ctx.userHome ?? home, entries: entriesOf(readManifest(home), h.id) }))
  }
  const switchedOff = hookSwitches(hooks, projects, ctx)
  for (const s of switchedOff) {
    problems.push({
      what: s.project
        ? `protection is OFF for project ${s.project}: ${s.setting} in ${s.file} switches svc's ${s.harness} hooks off`
        : `${s.harness}: ${s.setting} in ${s.file} switches svc's hooks off`,
      hint: `remove that setting (an agent cannot: svc denies its writes to that file)`,
    })
  }
  for (const u of ungated) {
    problems.push({
      what: `${u.harness} session ${u.harness_session_id ?? '?'}${u.cwd ? ` in ${u.cwd}` : ''} ran ${u.ungated} tool call${u.ungated === 1 ? '' : 's'} svc never gated (its pre-tool hook did not reach the daemon; last at ${u.last_ungated_at})`,
      hint: 'look for a project setting that switches hooks off, then `svc log` to see what ran',
    })
  }
  const separation = daemon.reachable ? daemonSeparation(url) : undefined
  const packs = listPacks(SHIPPED_POLICIES_DIR, home, managedPackFloor(ctx.vars ?? {}))
  return { url, home, daemon, ...(separation ? { separation } : {}), mode, session, hooks, sandbox, shim, bundle, policy, ledger, packs, switchedOff, ungated, problems }
}

/** Settings that switch hooks off: the user's configs, and the project layers of this directory and of every directory sessions ran in. */
function hookSwitches(hooks: readonly HarnessHooks[], projects: readonly string[], ctx: StatusContext): StatusReport['switchedOff'] {
  if (!ctx.userHome) return []
  const installed = new Set(hooks.map((h) => h.harness))
  const harnesses = knownHarnesses(ctx)
  const out: (HookSwitch & { project?: string })[] = userHookSwitches(ctx.userHome, ctx.vars ?? {}, harnesses).filter((s) => installed.has(s.harness))
  const seen = new Set<string>()
  for (const dir of [ctx.cwd, ...projects]) {
    if (!dir || seen.has(dir)) continue
    seen.add(dir)
    for (const s of projectHookSwitches(dir, ctx.userHome, harnesses))
      if (installed.has(s.harness) && !out.some((o) => o.file === s.file && o.setting === s.setting)) out.push({ ...s, project: dir })
  }
  return out
}
