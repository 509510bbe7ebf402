/**
 * The harness plugin contract. A harness (a coding agent's hook system) is one folder under `harnesses/<id>/`
 * that default-exports `defineHarness({...})`, and every fact svc needs about it is a field: it parses native
 * payloads into the core's ToolCall, renders native answers, names its config files, describes the entries the
 * installer adds, and says what self-protection, status, doctor and the hook protocol must know. It writes no
 * config file (the installer plugin does); only its optional doctor steps (`sandboxProbe`, `trust`) run its binary.
 */
import { addToPolicyList, extensionRegistry, registerOnce, type EnginePlugin, type Registries, type ToolCall } from '../core/index.ts'

/** Install scope: the user's home-level configs or one repository's. */
export type HarnessScope = 'user' | 'repo'

/** Where a hook event sits in the tool-call lifecycle. */
export type HookPhase = 'pre' | 'post' | 'post_error'

/** Facts a harness needs to find its files; passed in, never read from the process. */
export interface HarnessEnv {
  /** The user's home directory. */
  readonly home: string
  /** Repository root for repo scope (and for repo-level MCP configs). */
  readonly repo?: string
  /** Environment variables that relocate configs (a harness's `*_CONFIG_DIR`, `*_HOME`, ...). */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A config file a harness reads. */
export interface ConfigLocation {
  readonly scope: HarnessScope
  readonly path: string
  readonly format: 'jsonc' | 'toml'
  /** `hooks`: where the installer writes; `mcp`: where MCP servers are read from. */
  readonly purpose: 'hooks' | 'mcp'
  /** How a JSON(C) `mcp` file declares its servers when not `mcpServers` with a `command` string and `args`. */
  readonly mcpShape?: McpShape
  /** Absolute path of the published JSON Schema the written file must satisfy. */
  readonly schema?: string
}

/** The key of a JSON config's server map, and `argv`: `command` is one array (program and arguments), with no `args`. */
export interface McpShape {
  readonly map: string
  readonly command: 'string' | 'argv'
}

/** What the installer puts into hook entries. */
export interface InstallContext extends HarnessEnv {
  readonly scope: HarnessScope
  /** Absolute path of the installed POSIX shim. */
  readonly shimPath: string
  /** Daemon base URL, e.g. `http://127.0.0.1:7878`. */
  readonly daemonUrl: string
  /** A daemon under its own account: its hook socket, which the shim calls instead of the URL (`--socket=`). */
  readonly hookSocket?: string
  /** Stable id of this control plane's installs; a marker in every entry we write. */
  readonly installId: string
  /** Installed fail-open: the shim lets calls through when the daemon is down. */
  readonly failOpen: boolean
  /** `http` uses a native HTTP hook where the harness has one; it fails open. */
  readonly transport: 'command' | 'http'
  /** Current parsed content of a config file (comments stripped), or undefined when absent/unparsable. */
  readonly readConfig: (path: string) => unknown
  /** Current raw text of a config file, or undefined when absent. */
  readonly readText: (path: string) => string | undefined
  /** Set by `svc install --sandbox`: what the harness's own OS sandbox must keep from the agent's commands. */
  readonly sandbox?: SandboxFacts
}

/**
 * What the second layer (issue 16) asks of each harness's own sandbox for the agent's shell commands:
 * `svcHome` neither readable nor writable, `protectedFiles` not writable, the daemon's `ports` unreachable
 * under every loopback spelling, and no way to switch the sandbox off from inside.
 */
export interface SandboxFacts {
  readonly svcHome: string
  /** `$SVC_PORTS`: the daemon's listening port, 7878/7879 and SVC_PROTECTED_PORTS. */
  readonly ports: readonly number[]
  /** Absolute paths of every harness hook/MCP config and svc policy file the agent's commands must not write. */
  readonly protectedFiles: readonly string[]
  /**
   * The protected set (protected-set.ts) as absolute paths, `*` globs allowed in `denyRead`/`allowRead`: secrets no
   * command may read (carve-outs in `allowRead`), start-up files, svc's project layer and `.envrc` none may write.
   */
  readonly secrets?: { readonly denyRead: readonly string[]; readonly allowRead: readonly string[]; readonly denyWrite: readonly string[]; readonly envVars?: readonly string[] }
  /** Hosts the user allowed commands to reach (the project's registries and git remote); none by default. */
  readonly allowedDomains?: readonly string[]
  /** Write the harness's managed (root-owned, enterprise) settings instead of the user's. */
  readonly system: boolean
  /** Root of the managed settings (`/etc` normally; a temp dir in tests). */
  readonly systemRoot: string
}

/**
 * One entry the installer adds. JSON(C): append `value` to the array at `pointer`, creating missing
 * objects/arrays (and the file from `seed`). TOML: append `text` at the end of the file.
 */
export type InstallEntry =
  | {
      readonly format: 'jsonc'
      readonly file: string
      readonly pointer: readonly string[]
      readonly value: unknown
      /** Content of the file when it does not exist yet (default `{}`). */
      readonly seed?: Readonly<Record<string, unknown>>
      readonly schema?: string
      /** `set`: put `value` at `pointer` itself (a scalar setting), remembering what was there for uninstall. */
      readonly mode?: 'append' | 'set'
    }
  | {
      readonly format: 'toml'
      readonly file: string
      readonly text: string
      readonly schema?: string
      /** `start`: the block holds top-level keys, which TOML only allows before the first table. */
      readonly position?: 'start' | 'end'
      /** Which svc block this is (a re-install replaces only an earlier block with the same id). */
      readonly block?: string
    }

/** The installer's plan for one harness: entries plus what the user must do afterwards. */
export interface HarnessInstallPlan {
  readonly entries: readonly InstallEntry[]
  readonly notes: readonly string[]
}

/** A parsed hook payload. */
export type HookInput =
  /**
   * A pre-tool event: gate this call. `derivedId` marks a tool use id computed from the call itself
   * (the harness sent none): it links outcomes but never marks a later identical call as a duplicate.
   */
  | { readonly kind: 'call'; readonly call: Omit<ToolCall, 'sessionId'>; readonly derivedId?: boolean }
  /** A post-tool event: record what happened to the call with `toolUseId`. */
  | {
      readonly kind: 'outcome'
      readonly outcome: 'ran' | 'tool_errored'
      readonly call: Omit<ToolCall, 'sessionId'>
      /**
       * The harness decides this kind of call on another event whose tool use id cannot match this one: a
       * missing decision leaf is expected, not a sign that the pre-tool hook was bypassed.
       */
      readonly unlinkable?: boolean
    }
  /** An event we answer without a decision (the harness proceeds as if we were absent). */
  | { readonly kind: 'ignore'; readonly why: string }

/** What the daemon decided, handed to `render`. */
export interface HookAnswer {
  readonly verdict: 'allow' | 'deny'
  readonly ruleId: string
  readonly reason: string
  readonly nudge?: string
}

/** A native response: the HTTP body the shim relays to stdout (empty string = print nothing). */
export interface NativeResponse {
  readonly body: string
}

/** An MCP server as found in a harness config: identity fields only, never env or header values. */
export interface McpServerEntry {
  readonly name: string
  readonly harness: string
  readonly file: string
  readonly transport: 'stdio' | 'http' | 'sse' | 'tcp'
  readonly command?: string
  readonly args?: readonly string[]
  readonly cwd?: string
  readonly url?: string
  readonly tcp?: string
  readonly envNames?: readonly string[]
  readonly headerNames?: readonly string[]
  /** The entry runs the real server through `svc mcp-proxy` (command and args above are the real server's). */
  readonly wrapped?: boolean
}

/** Globs (as in path gates) self-protection keeps from the agent: config `files`, the `dirs` holding them, the CLI `programs` writing them. */
export type ProtectedPaths = Readonly<{ files: readonly string[]; dirs: readonly string[]; programs?: readonly string[] }>

/** Settings that switch svc's hooks off without touching its entries: the user's files, one project layer's (`dir`), and the settings `found` in a file's text. */
export type HookSwitches = Readonly<{ userFiles(env: HarnessEnv): readonly string[]; projectFiles(dir: string): readonly string[]; found(text: string): readonly string[] }>

/** What `svc doctor --probe` attacks from inside a sandbox: read `secretFile` in `svcHome`, write `hookConfig`, reach `port`. */
export type ProbeTargets = Readonly<Record<'home' | 'svcHome' | 'secretFile' | 'hookConfig' | 'cwd', string>> & { readonly port: number }
/** One attack: `blocked` (good), `reached`, or `not-probed` (`detail` says why); `residual`: got through, as documented. */
export type ProbeResult = Readonly<{ harness: string; probe: string; outcome: 'blocked' | 'reached' | 'not-probed'; detail: string; residual?: boolean }>

/** What a harness's own sandbox can keep from the agent's commands once svc configured it (docs/threat-model.md). */
export type SandboxCover = 'secrets' | 'svcHome' | 'outside' | 'ports' | 'daemon'
/** The covers as `svc status` and the docs name them: what stays open to a command the gate misses when one is missing. */
export const SANDBOX_COVERS: Readonly<Record<SandboxCover, string>> = {
  secrets: 'reading secrets (keys, credentials, .env)',
  svcHome: "reading svc's home",
  outside: 'writing outside the workspace (start-up files, harness configs)',
  ports: "reaching the daemon's ports and the network",
  daemon: 'killing or tracing the daemon',
}

/** svc's entries for one harness as the install manifest records them, and where a trust step runs. */
export type TrustRequest = Readonly<{
  svcHome: string
  env: Readonly<Record<string, string | undefined>>
  cwd: string
  entries: readonly Readonly<{ file: string; value?: unknown; text?: string }>[]
}>
type Shown = Readonly<{ what: string; hint: string }>

/**
 * A harness that runs hooks only once the user trusted them: svc trusts exactly its own. Each step returns what to show:
 * `check` (status, offline), `ask` (doctor), `grant` (install, `doctor --fix`; `ok: false` says what to do), `revoke` (uninstall).
 */
export interface HookTrust {
  check(req: TrustRequest): readonly Shown[]
  ask(req: TrustRequest): Promise<Shown | undefined>
  grant(req: TrustRequest, by: 'install' | 'fix'): Promise<{ readonly ok: boolean; readonly line: string }>
  revoke(req: TrustRequest): Promise<string | undefined>
}

/** Where a harness keeps its own record of past sessions: files under `dir` whose path relative to it matches `files`. */
export interface HistoryLocation {
  readonly dir: string
  readonly files: RegExp
}

/** One tool call a history file records, as the harness's pre-tool hook would have received it (native name and input). */
export interface HistoryCall {
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
  readonly cwd?: string
  /** ISO time the harness wrote, when it wrote one. */
  readonly at?: string
  /** 1-based line (JSONL) or record number of the call in its file. */
  readonly line: number
}

/** What one history file held: the calls it records, and what could not be read (never skipped silently). */
export interface HistoryRead {
  readonly calls: readonly HistoryCall[]
  readonly unreadable: readonly { readonly line: number; readonly why: string }[]
}

/** The harness's own transcripts (`svc scan` replays them through the policy). Optional: a harness without one is not scanned. */
export interface HarnessHistory {
  locations(env: HarnessEnv): readonly HistoryLocation[]
  /** Pure: parses one file's text (`path` for formats that keep facts beside it, such as a project root file). */
  read(text: string, path: string, readSibling: (path: string) => string | undefined): HistoryRead
  /** For a store that is not text (a SQLite database): reads the file itself, read-only, instead of `read`. */
  readFile?(path: string): HistoryRead
}

/** The definition a harness folder provides. */
export interface HarnessDefinition {
  /** Kebab-case id, the `{harness}` path segment and `--harness` value. */
  readonly id: string
  readonly displayName: string
  /** Native event names we serve, with their lifecycle phase. */
  readonly events: Readonly<Record<string, HookPhase>>
  /** Is the harness installed for this user (user scope) or configured in this repo (repo scope)? */
  detect(env: HarnessEnv, scope: HarnessScope, exists: (path: string) => boolean): boolean
  configLocations(env: HarnessEnv): readonly ConfigLocation[]
  /** Our entries for a scope. Pure: reads through the context, writes nothing. */
  installPlan(ctx: InstallContext): HarnessInstallPlan
  /**
   * The harness's own OS sandbox configured to `ctx.sandbox` (`svc install --sandbox`): entries for its user or
   * managed settings. Pure, like `installPlan`; throws an Error naming the setting when it cannot be done safely.
   */
  sandboxPlan?(ctx: InstallContext & { readonly sandbox: SandboxFacts }): HarnessInstallPlan
  /** True when a config value (hook handler or group) was written by this control plane. */
  isOurs(value: unknown, installId: string): boolean
  /**
   * The pre-tool event and payload its hook would receive for a native tool call (fixtures, `svc explain --harness`,
   * `svc scan`). Without it: `tool_name`, `tool_input`, `cwd` on each pre-tool event.
   */
  nativeCall?(tool: string, input: Readonly<Record<string, unknown>>, cwd: string | undefined): { readonly event: string; readonly payload: Record<string, unknown> }
  /** Parses a native payload; throws HookPayloadError on a payload it cannot use. */
  parse(event: string, payload: Readonly<Record<string, unknown>>): HookInput
  /** Renders a decision (or `undefined` for outcome/ignored events) in the native format of `event`. */
  render(event: string, answer: HookAnswer | undefined): NativeResponse
  /** MCP servers configured for this harness (user files, and repo files when `env.repo` is set). */
  mcpServers(env: HarnessEnv, read: (path: string) => string | undefined): readonly McpServerEntry[]
  /** What self-protection keeps from the agent: the policy's `$SVC_HARNESS_FILES`, `…_DIRS`, `…_PROGRAMS`. */
  readonly protects?: ProtectedPaths
  /** Environment variables that move its user configs (passed on in `HarnessEnv.env`). */
  readonly configVariables?: readonly string[]
  /** Environment variables that make a run load no svc hook without moving a config (`OPENCODE_PURE`). */
  readonly hookOffVariables?: readonly string[]
  readonly hookSwitches?: HookSwitches
  /** Input fields that describe rather than change a call (`cwdEchoes`: when equal to the cwd): ignored when matching a duplicate delivery. */
  readonly replayIgnore?: { readonly fields?: readonly string[]; readonly cwdEchoes?: readonly string[] }
  /** Sandbox settings files an agent's command could loosen: every harness's sandbox keeps them from writes. */
  sandboxSettings?(env: HarnessEnv): readonly string[]
  /** What its sandbox covers as svc configures it (`true`: measured or documented to hold). */
  readonly sandboxCovers?: Readonly<Record<SandboxCover, boolean>>
  /** Runs the probes inside its sandbox as svc configured it (`files`: the settings svc wrote there). May run the harness's binary. */
  sandboxProbe?(targets: ProbeTargets, files: readonly string[], env: Readonly<Record<string, string | undefined>>): readonly ProbeResult[]
  readonly trust?: HookTrust
  /** Its own session transcripts, for `svc scan`. */
  readonly history?: HarnessHistory
  /** Configs as a user may already have them (home-relative path → a file holding one): install keeps them, uninstall gives them back byte for byte. */
  readonly samples?: Readonly<Record<string, string>>
}

/** Adds what self-protection keeps for a harness to the policy lists `$SVC_HARNESS_FILES`, `$SVC_HARNESS_DIRS`, `$SVC_HARNESS_PROGRAMS`. */
function addProtected(registry: Registries, p: ProtectedPaths | undefined): void {
  for (const key of ['files', 'dirs', 'programs'] as const) addToPolicyList(registry, `$SVC_HARNESS_${key.toUpperCase()}`, p?.[key] ?? [])
}

/** A payload that is not usable (wrong types, missing tool name); the route turns it into a 400. */
export class HookPayloadError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'HookPayloadError'
  }
}

/** The engine plugin `defineHarness` returns: it registers `harness` in the harness registry. */
export interface HarnessPlugin extends EnginePlugin {
  readonly harness: HarnessDefinition
}

/** The harness extension registry of an engine. */
export function harnessRegistry(registry: Registries): Map<string, HarnessDefinition> {
  return extensionRegistry<HarnessDefinition>(registry, 'harness')
}

/** Ids of harnesses announced but not implemented yet: asking for one is a 501, not a 404 or 400. */
export function plannedHarnesses(registry: Registries): ReadonlySet<string> {
  return new Set(extensionRegistry<true>(registry, 'harness-planned').keys())
}

/** An engine plugin that records the planned harness ids and what self-protection keeps for them (data owned by `harnesses/`). */
export function definePlannedHarnesses(ids: readonly string[], protects?: ProtectedPaths): EnginePlugin {
  const name = 'harness:planned'
  return {
    name,
    apply({ registry }) {
      for (const id of ids) registerOnce(extensionRegistry<true>(registry, 'harness-planned'), id, true, name)
      addProtected(registry, protects)
    },
  }
}

/** Turns a harness definition into an engine plugin that registers it under its id. */
export function defineHarness(definition: HarnessDefinition): HarnessPlugin {
  const name = `harness:${definition.id}`
  return {
    name,
    harness: definition,
    apply({ registry }) {
      registerOnce(harnessRegistry(registry), definition.id, definition, name)
      addProtected(registry, definition.protects)
      // A nested run of one of its `programs` with one of these set or cleared loads no svc hook (shell analysis).
      addToPolicyList(registry, '$SVC_HARNESS_VARIABLES', [...(definition.configVariables ?? []), ...(definition.hookOffVariables ?? [])])
    },
  }
}

/** The reason text an agent sees on a deny: the gate's reason, its id, and the nudge when present. */
export function denyText(answer: HookAnswer): string {
  const rule = answer.ruleId ? ` [svc rule ${answer.ruleId}]` : ''
  const nudge = answer.nudge ? ` ${answer.nudge}` : ''
  return `${answer.reason}${rule}${nudge}`
}
