/**
 * Codex runs a hook only once its exact definition is trusted (`[hooks.state."<key>"] trusted_hash` in the
 * user's config.toml, written by the `/hooks` screen). `svc install` finishes the job through the same app
 * server: it lists the hooks Codex sees, picks exactly svc's own entries (same file and same command as the
 * install manifest records), trusts and enables those, and checks the result. Anything else is reported,
 * never guessed. The keys and hashes trusted are kept in `$SVC_HOME/install/codex-trust.json` so
 * `svc status` can check them without starting Codex.
 */
import { createHash } from 'node:crypto'
import { readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import writeFileAtomic from 'write-file-atomic'
import { writePrivateFile } from '../../core/index.ts'
import type { HookTrust, TrustRequest } from '../../harness-contract/index.ts'
import { findCodex, withCodexAppServer, type CodexHookMetadata } from './app-server.ts'

/** What svc wrote for Codex: the file and the exact command of each hook entry. */
export interface SvcCodexHook {
  readonly file: string
  readonly command: string
}

export interface CodexTrustRecord {
  /** The config.toml Codex keeps trust in. */
  readonly configFile: string
  /** Hook key -> the hash svc trusted. */
  readonly hooks: Readonly<Record<string, string>>
  /** sha256 of config.toml before svc first had Codex trust its entries (absent: there was no file). */
  readonly configBefore?: string | null
}

export interface CodexTrustResult {
  /** svc's entries as Codex lists them after the run. */
  readonly ours: readonly CodexHookMetadata[]
  readonly expected: number
  /** Keys svc trusted or re-enabled in this run. */
  readonly changed: readonly string[]
  /** Why protection is not in force for Codex (undefined: every svc entry is trusted and enabled). */
  readonly problem?: string
}

const RECORD = (svcHome: string) => join(svcHome, 'install', 'codex-trust.json')
export const TRUST_BY_HAND = 'open Codex, type `/hooks`, and trust every entry whose command runs svc-hook'

/** svc's Codex hook commands, from the install manifest's entries (never from the harness config, which anyone can edit). */
export function svcCodexHooks(entries: TrustRequest['entries']): SvcCodexHook[] {
  const out: SvcCodexHook[] = []
  for (const { file, value, text } of entries) {
    if (text === undefined) {
      const hooks = (value as { hooks?: { command?: unknown }[] } | undefined)?.hooks ?? []
      for (const h of hooks) if (typeof h.command === 'string') out.push({ file, command: h.command })
    } else {
      for (const m of text.matchAll(/^command = (".*")$/gm)) out.push({ file, command: JSON.parse(m[1]!) as string })
    }
  }
  return out
}

function canonical(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

const isOurs = (expected: readonly SvcCodexHook[]) => (h: CodexHookMetadata) =>
  h.handlerType === 'command' && expected.some((e) => e.command === h.command && canonical(e.file) === canonical(h.sourcePath))

const settled = (h: CodexHookMetadata) => h.enabled && (h.trustStatus === 'trusted' || h.trustStatus === 'managed')

export function readCodexTrust(svcHome: string): CodexTrustRecord | undefined {
  try {
    return JSON.parse(readFileSync(RECORD(svcHome), 'utf8')) as CodexTrustRecord
  } catch {
    return undefined
  }
}

/**
 * Lists svc's Codex hooks through the app server and, with `write`, trusts and enables exactly those.
 * `env` is the environment Codex itself would run with (CODEX_HOME, HOME, PATH); `cwd` the directory whose
 * project layers count (the repository for a repo-scope install).
 */
export async function trustCodexHooks(opts: TrustRequest & { write: boolean }): Promise<CodexTrustResult> {
  const expected = svcCodexHooks(opts.entries)
  if (expected.length === 0) return { ours: [], expected: 0, changed: [] }
  const bin = findCodex(opts.env)
  if (!bin)
    return {
      ours: [],
      expected: expected.length,
      changed: [],
      problem: `codex is not on PATH, so svc could not ask Codex to trust its ${expected.length} hook entries (Codex runs none of them until they are trusted)`,
    }
  try {
    return await withCodexAppServer(bin, opts.env, opts.cwd, async (server) => {
      const listed = await server.listHooks(opts.cwd)
      let ours = listed.hooks.filter(isOurs(expected))
      const changed: string[] = []
      const pending = ours.filter((h) => !settled(h) && h.trustStatus !== 'managed')
      let configFile: string | undefined
      const earlier = readCodexTrust(opts.svcHome)
      const configBefore = earlier ? earlier.configBefore : sha256Of(join(opts.env.CODEX_HOME || join(opts.env.HOME ?? '', '.codex'), 'config.toml'))
      if (opts.write && pending.length > 0) {
        configFile = await server.upsertConfig('hooks.state', Object.fromEntries(pending.map((h) => [h.key, { trusted_hash: h.currentHash, enabled: true }])))
        changed.push(...pending.map((h) => h.key))
        ours = (await server.listHooks(opts.cwd)).hooks.filter(isOurs(expected))
      }
      if (opts.write && ours.length > 0) {
        configFile ??= join(opts.env.CODEX_HOME || join(opts.env.HOME ?? '', '.codex'), 'config.toml')
        writePrivateFile(
          RECORD(opts.svcHome),
          `${JSON.stringify({ configFile, hooks: Object.fromEntries(ours.map((h) => [h.key, h.currentHash])), configBefore } satisfies CodexTrustRecord, null, 2)}\n`,
        )
      }
      const notes = [...listed.errors, ...listed.warnings]
      const problem =
        ours.length < expected.length
          ? `Codex lists ${ours.length} of svc's ${expected.length} hook entries${notes.length ? ` (${notes.join('; ')})` : ''}; a repo-scope install also needs the project trusted in Codex`
          : ours.some((h) => !settled(h))
            ? `Codex has svc hook entries it will not run: ${ours
                .filter((h) => !settled(h))
                .map((h) => `${h.key} (${h.enabled ? h.trustStatus : 'disabled'})`)
                .join(', ')}`
            : undefined
      return { ours, expected: expected.length, changed, ...(problem ? { problem } : {}) }
    })
  } catch (err) {
    return { ours: [], expected: expected.length, changed: [], problem: `asking Codex (${bin} app-server) failed: ${(err as Error).message}` }
  }
}

/**
 * The quick check `svc status` makes without starting Codex: each svc entry svc trusted still carries that
 * hash and is not disabled in the config Codex reads. Returns one line per entry Codex will not run.
 */
export function codexTrustDrift(req: TrustRequest): string[] {
  const expected = svcCodexHooks(req.entries)
  if (expected.length === 0) return []
  const record = readCodexTrust(req.svcHome)
  if (!record || Object.keys(record.hooks).length < expected.length) return [`svc's ${expected.length} Codex hook entries were never trusted in Codex, which runs none of them`]
  let state: Record<string, { trusted_hash?: unknown; enabled?: unknown }> = {}
  try {
    const parsed = parseToml(readFileSync(record.configFile, 'utf8')) as { hooks?: { state?: typeof state } }
    state = parsed.hooks?.state ?? {}
  } catch (err) {
    return [`${record.configFile} cannot be read (${(err as Error).message}), so Codex trusts none of svc's hook entries`]
  }
  const out: string[] = []
  for (const [key, hash] of Object.entries(record.hooks)) {
    const s = state[key]
    if (s?.enabled === false) out.push(`${key} is disabled`)
    else if (s?.trusted_hash !== hash) out.push(`${key} is no longer trusted`)
  }
  return out
}

/**
 * After `svc uninstall` removed svc's Codex entries: drops the trust svc recorded for them (only keys still
 * carrying the hash svc trusted), through the app server, and forgets the record. Returns what it did, or
 * why it could not (the entries are gone either way; a stale trust entry matches no hook).
 */
export async function untrustCodexHooks(opts: TrustRequest): Promise<string | undefined> {
  const record = readCodexTrust(opts.svcHome)
  if (!record || svcCodexHooks(opts.entries).length > 0) return undefined
  let state: Record<string, { trusted_hash?: unknown }> = {}
  try {
    state = (parseToml(readFileSync(record.configFile, 'utf8')) as { hooks?: { state?: typeof state } }).hooks?.state ?? {}
  } catch {
    state = {}
  }
  const ours = Object.keys(record.hooks).filter((key) => state[key]?.trusted_hash === record.hooks[key])
  const forget = () => rmSync(RECORD(opts.svcHome), { force: true })
  if (ours.length === 0) return void forget()
  const bin = findCodex(opts.env)
  if (!bin) return `codex is not on PATH: the trust entries svc had Codex record stay in ${record.configFile} (${ours.join(', ')}); they match no hook now`
  try {
    const kept = Object.fromEntries(Object.entries(state).filter(([key]) => !ours.includes(key)))
    await withCodexAppServer(bin, opts.env, opts.cwd, (server) => server.replaceConfig('hooks.state', kept))
    if (Object.keys(kept).length === 0) dropEmptyTrustTable(record)
    forget()
    return `removed the Codex trust of svc's ${ours.length} entr${ours.length === 1 ? 'y' : 'ies'} from ${record.configFile}`
  } catch (err) {
    return `could not remove svc's Codex trust entries from ${record.configFile}: ${(err as Error).message}`
  }
}

function sha256Of(file: string): string | null {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex')
  } catch {
    return null
  }
}

/**
 * Codex's app server leaves an empty `[hooks.state]` table once the last trust entry is gone. svc had it put there,
 * so svc takes it out — but only when what remains is byte for byte the file from before svc's first trust.
 */
function dropEmptyTrustTable(record: CodexTrustRecord): void {
  if (!record.configBefore) return
  let text: string
  try {
    text = readFileSync(record.configFile, 'utf8')
  } catch {
    return
  }
  const empty = /(\n*)\[hooks\.state\]\n(\n*)(?=\[|$)/.exec(text)
  if (!empty) return
  const [whole, before = '', after = ''] = empty
  const head = text.slice(0, empty.index)
  const tail = text.slice(empty.index + whole.length)
  for (const keep of new Set([before, after, '', '\n', before + after])) {
    const candidate = head + keep + tail
    if (createHash('sha256').update(candidate).digest('hex') === record.configBefore)
      return writeFileAtomic.sync(record.configFile, candidate, { mode: statSync(record.configFile).mode & 0o777, fsync: true })
  }
}

const entries = (n: number) => `entr${n === 1 ? 'y' : 'ies'}`

/** The trust step as svc's commands run it (HarnessDefinition.trust), with what each shows. */
export const codexTrust: HookTrust = {
  check: (req) =>
    codexTrustDrift(req).map((line) => ({
      what: `codex: ${line}; Codex runs only hooks the user trusted and enabled`,
      hint: "re-run `svc install --harness codex` (trusts exactly svc's entries through Codex), or open `/hooks` in Codex and trust and enable them",
    })),
  async ask(req) {
    const { problem } = await trustCodexHooks({ ...req, write: false })
    return problem ? { what: `codex: ${problem}`, hint: `\`svc doctor --fix\` (trusts exactly svc's entries through Codex), or ${TRUST_BY_HAND}` } : undefined
  },
  async grant(req, by) {
    const result = await trustCodexHooks({ ...req, write: true })
    if (by === 'fix') {
      return {
        ok: !result.problem,
        line: result.problem
          ? `could not trust svc's Codex entries: ${result.problem}`
          : `trusted svc's ${result.changed.length} Codex hook ${entries(result.changed.length)} through Codex's app server`,
      }
    }
    if (result.problem) {
      const line = `codex: svc's hook entries are written, but Codex will not run them: ${result.problem}.\nTo finish: ${TRUST_BY_HAND} (or put codex on PATH and re-run \`svc install --harness codex\`); \`svc status\` shows when they are trusted`
      return { ok: false, line }
    }
    if (result.changed.length > 0)
      return { ok: true, line: `codex: trusted svc's ${result.changed.length} hook ${entries(result.changed.length)} through Codex's app server (only svc's own)` }
    return { ok: true, line: `codex: svc's ${result.ours.length} hook entries are trusted` }
  },
  async revoke(req) {
    const done = await untrustCodexHooks(req)
    return done ? `codex: ${done}` : undefined
  },
}
