/**
 * Domain types shared by the core and every plugin, and the few constants that define them (layers, signer
 * tiers and their banners, severities). This file is a leaf: it imports nothing, so plugins can import from it
 * without creating import cycles, and the CLI's quick paths (`svc hud`, its io) without loading the kernel.
 */

/** Final verdict a harness sees. A gate check never answers `ask`. */
export type Verdict = 'allow' | 'deny'

/** Daemon-level (outer) mode; `firewall` is the default. */
export type Mode = 'monitor' | 'firewall'

/** Ledger verdict labels: decisions, plus outcome child rows, session events and operator (control) events. */
export type LedgerVerdict = 'allow' | 'deny' | 'monitor_alert' | 'ran' | 'tool_errored' | 'session_created' | 'session_rotated' | 'session_expired' | OperatorEventVerdict

/** What changed what the gate does (leaf type `control`): who did it and what it was are in the leaf's `facts`. */
export type OperatorEventVerdict =
  | 'mode_changed'
  | 'mcp_pin_accepted'
  | 'mcp_pin_rejected'
  | 'hooks_installed'
  | 'hooks_uninstalled'
  | 'policy_reloaded'
  | 'config_changed'
  | 'false_positive_applied'
  | 'false_positive_reverted'
  | 'hook_bypassed'
  | 'policy_bundle_activated'
  | 'policy_bundle_refused'
  | 'snapshot_taken'
  | 'allow_granted'
  | 'allow_used'

/** Signer kinds as recorded in the ledger and the API (CLI `--tier` uses the kebab-case spelling). */
export type SignerKind = 'unattested' | 'software' | 'totp' | 'os_keychain' | 'hardware_key'

/** The signer tiers as the CLI's `--tier` spells them, weakest first. */
export const TIERS = ['unattested', 'software', 'totp', 'os-keychain', 'hardware-key'] as const
export type Tier = (typeof TIERS)[number]

/** Parses a `--tier` value; throws naming the accepted values. */
export function parseTier(value: string): Tier {
  if ((TIERS as readonly string[]).includes(value)) return value as Tier
  throw new RangeError(`unknown tier "${value}" (expected one of: ${TIERS.join(', ')})`)
}

/** The ledger's signer kind for a CLI tier (`os-keychain` → `os_keychain`). */
export function signerKindOf(tier: Tier): SignerKind {
  return tier.replace('-', '_') as SignerKind
}

/** The spec's banner for a weak signer kind (exact text, never suppressible), or undefined for the strong kinds. */
export function bannerFor(kind: SignerKind): { readonly color: 'red' | 'yellow'; readonly text: string } | undefined {
  if (kind === 'unattested') return { color: 'red', text: 'UNATTESTED — LEDGER NOT SIGNED' }
  if (kind === 'software') return { color: 'red', text: 'DEV — SOFTWARE SIGNER' }
  if (kind === 'totp') return { color: 'yellow', text: 'TOTP-BACKED — MEDIUM ASSURANCE' }
  return undefined
}

/** Policy layers, in deny-overrides order (a lower layer can never allow what a higher one denies). */
export type LayerName = 'daemon' | 'registry' | 'group' | 'user' | 'repo'
export const LAYERS: readonly LayerName[] = ['daemon', 'registry', 'group', 'user', 'repo']

/** What a gate does when its `when` block matches. `monitor` records an alert and never denies. */
export type OnHit = 'deny' | 'allow' | 'monitor'

/** A tool call as a harness or the gate-check endpoint delivers it (the spec's request fields). */
export interface ToolCall {
  readonly sessionId: string
  readonly source: string
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
  readonly cwd?: string
  readonly meta?: Readonly<Record<string, unknown>>
  /** The harness's id for this tool use, when it has one (links outcome rows to the decision). */
  readonly toolUseId?: string
  /**
   * The same call's decision at another enforcement point (the hook's leaf of a call `svc mcp-proxy` then
   * relays): recorded as the leaf's `link_seq`, so the ledger shows one call with two enforcement points.
   */
  readonly linkSeq?: number
}

/** One simple command after shell analysis: what actually runs. */
export interface ShellCommand {
  /** Basename of the program after unwrapping wrappers and resolving variables, e.g. `rm`. */
  readonly program: string
  /** Effective argv after quote removal and decoding; argv[0] as written (e.g. `/bin/rm`). */
  readonly argv: readonly string[]
  /** argv joined by single spaces: what `command_regex` sees for this command. */
  readonly text: string
  /** How the command was reached, outermost first, e.g. `['bash -c', 'sudo']`; empty at top level. */
  readonly via: readonly string[]
  /** Canonical paths among its operands, redirections and inline code (both spellings when a symlink exists). */
  readonly paths?: readonly string[]
  /** Canonical paths it writes through output redirections (`>`, `>>`, `&>`) or `tee`. */
  readonly writes?: readonly string[]
  /** Paths among `writes` that it reads as well (a host directory mounted into a container). */
  readonly readsToo?: readonly string[]
  /** Network destinations it names (URLs, HTTP client targets, sockets, `/dev/tcp`). */
  readonly urls?: readonly CallUrl[]
}

/** Result of analysing one shell command string (preEvaluate). */
export interface CommandAnalysis {
  readonly raw: string
  readonly commands: readonly ShellCommand[]
  /** Structural findings gates can match, e.g. `pipe_to_shell`, `decode_exec`, `inline_code`. */
  readonly signals: readonly string[]
  /** Set when the command could not be analysed (too large, too deep, over budget, unparsable). */
  readonly error?: string
}

/** A URL found in a tool call, parsed and with its host canonicalised (e.g. `127.1` → `127.0.0.1`). */
export interface CallUrl {
  readonly raw: string
  readonly scheme: string
  readonly host: string
  readonly port?: number
}

/**
 * The normalised tool call every gate sees. `preEvaluate` taps fill in the derived fields;
 * they start empty and only ever grow.
 */
export interface EvalRequest extends ToolCall {
  readonly shell?: CommandAnalysis
  /** Canonical absolute paths the call touches (file tools and paths found in commands). */
  readonly paths: readonly string[]
  readonly urls: readonly CallUrl[]
  /** MCP server and tool, from `mcp__<server>__<tool>` names or harness metadata. */
  readonly mcp?: { readonly server: string; readonly tool: string }
  /**
   * Why part of the tool input was not examined (over the normaliser's bounds: nesting, strings, paths,
   * URLs). The engine refuses such a call in firewall mode, as it refuses a command it could not analyse.
   */
  readonly uncovered?: string
}

/** Per-request context: session facts and the clock, never a free-form bag. */
export interface EvalContext {
  readonly now: number
  readonly session?: SessionFacts
  readonly home: string
  /** The daemon's own $SVC_HOME (what `$SVC_HOME` means in path globs); defaults to `<home>/.svc`. */
  readonly svcHome?: string
  /** The directory of the shipped policy packs the daemon loads (`$SVC_POLICIES` in path globs). */
  readonly policiesDir?: string
  /**
   * The ports the control plane is reachable on (`$SVC_PORTS` in `url.port` and argument globs): the daemon's
   * listening port, the reserved 7878/7879 and `SVC_PROTECTED_PORTS`; 7878/7879 when absent.
   */
  readonly svcPorts?: readonly number[]
}

export interface SessionFacts {
  readonly id: string
  readonly signer: SignerKind
  readonly userId?: string
  readonly groups: readonly string[]
}

/** Where a YAML value came from, for load errors. */
export interface SourceLoc {
  readonly file: string
  readonly line?: number
  readonly col?: number
}

/** One layer's opinion on a call, as listed in `policy_trace`. */
export interface LayerTrace {
  readonly layer: LayerName
  readonly source: string
  readonly verdict: 'allow' | 'deny' | 'monitor_alert' | 'none'
  readonly rule_id?: string
}

/** A gate that matched the call. */
export interface GateHit {
  readonly gateId: string
  readonly layer: LayerName
  readonly source: string
  readonly onHit: OnHit
  readonly requireStrong: boolean
  readonly nudge?: string
  readonly reason: string
}

/** The decision for one call, built by the engine and refined by `postLocal` and `guardrail` taps. */
export interface Decision {
  readonly verdict: Verdict
  readonly ledgerVerdict: 'allow' | 'deny' | 'monitor_alert'
  readonly ruleId: string
  readonly reason: string
  readonly nudge?: string
  readonly monitorMatch: boolean
  readonly hits: readonly GateHit[]
  readonly trace: readonly LayerTrace[]
  /** Stage that produced the final verdict: local policy, a guardrail, or a core refusal. */
  readonly stage: 'local' | 'guardrail' | 'core'
  /** Present when guardrail evaluators matched after a local allow: their verdicts, kept apart from the local one. */
  readonly guardrail?: GuardrailStage
  readonly grant?: { readonly id: string; readonly gates: readonly string[] } // the user's `svc allow`: waives these gates' denies (decision.ts `waive`)
}

/** What the core asks the ledger to append; the ledger adds seq, hashes and signature. */
export interface LedgerDraft {
  /** `control`: an operator changed what the gate does (mode, pins, hooks, policy, guardrails switched on or off). */
  readonly kind: 'decision' | 'outcome' | 'session' | 'control'
  readonly sessionId: string
  readonly signer: SignerKind | 'none'
  readonly source: string
  readonly tool: string
  readonly verdict: LedgerVerdict
  readonly monitorMatch: boolean
  readonly ruleId: string
  readonly toolUseId: string
  readonly policyTrace: readonly LayerTrace[]
  readonly payloadHash: string
  readonly reason: string
  readonly parentSeq?: number
  /** Decision leaves: the seq of the same call's decision at another enforcement point (see ToolCall.linkSeq). */
  readonly linkSeq?: number
  /** Set only when a guardrail (not local policy) decided: the leaf then says so (`stage: "guardrail"`). */
  readonly stage?: 'guardrail'
  readonly at: number
  /** Decision leaves: the hash of the policy and the daemon mode that decided. */
  readonly policyHash?: string
  readonly mode?: Mode
  /** Operator events: who, and what changed (e.g. `from`/`to` of a mode change). */
  readonly facts?: Readonly<Record<string, string>>
}

/** The exact call a decision leaf commits to through its `payload_hash` (see `payloadHash`). */
export interface CallPayload {
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
  readonly cwd: string | null
}

/** An appended, durable ledger entry. */
export interface LedgerEntry extends LedgerDraft {
  readonly seq: number
  readonly leafHash: string
  readonly prevLeafHash: string
  readonly signature?: string
}

/** The signed part of a session certificate (field names are the wire names). */
export interface SessionBundle {
  readonly v: 1
  readonly session_id: string
  readonly signer: SignerKind
  /** Base64 raw Ed25519 public key of the session; absent for unattested sessions. */
  readonly session_public_key?: string
  /** Base64 raw Ed25519 public key of the host key that signed; absent for unattested sessions. */
  readonly host_public_key?: string
  readonly issued_at_ms: number
  readonly expires_at_ms: number
  readonly user_id?: string
  readonly groups?: readonly string[]
  /** The session this one replaces (`svc session rotate`). */
  readonly rotates?: string
}

/** A bundle with the host signature (base64), as posted and as embedded in the ledger. */
export interface SessionCertificate {
  readonly bundle: SessionBundle
  readonly signature?: string
}

/** What a leaf (or gate) needs from a call: a tool in `tools`, a shell program in `programs`, or one of `facets` (gate-index.ts callFacets). */
export interface IndexKeys {
  readonly tools?: readonly string[]
  readonly programs?: readonly string[]
  readonly facets?: readonly string[]
}

// The guardrail seam's shapes (core/guardrail/ holds its logic): here, so the hooks and decisions that carry
// them need not import the seam.

/** The spec's ordered scale: none < low < medium < high < critical. */
export const SEVERITIES = ['none', 'low', 'medium', 'high', 'critical'] as const
export type Severity = (typeof SEVERITIES)[number]

/** One category of a mapped answer: its severity on our scale and the vendor's raw flag. */
export interface CategoryResult {
  readonly severity: Severity
  readonly raw: boolean
}

/** A classifier answer after the adapter rewrote it (the spec's `{safe, categories, rationale}`). */
export interface ClassifierResult {
  readonly safe: boolean
  readonly categories: Readonly<Record<string, CategoryResult>>
  readonly rationale: string
}

export type ThresholdOp = '>=' | '>' | '='

/** One `on_threshold` item, compiled. `category: any` matches when any category meets it. */
export interface Threshold {
  readonly category: string
  readonly op: ThresholdOp
  readonly severity: Severity
  readonly action: 'deny' | 'monitor'
}

export type CatalogKind = 'classifier_model' | 'account_policy'

export interface CatalogEntry {
  /** Policy-facing id, `<provider>/<model>`, e.g. `acme/moderation-v2`. */
  readonly id: string
  readonly provider: string
  /** The vendor's own model name, as sent on the wire. */
  readonly model: string
  readonly kind: CatalogKind
  readonly title: string
  /** Category names this model answers with (thresholds may name only these, or `any`). */
  readonly categories: readonly string[]
  /** Per-model override of what a raw `true` flag means (default `high`). */
  readonly flagSeverity?: Readonly<Record<string, Severity>>
  /** Adapter options of this model (e.g. Azure's output type). */
  readonly options?: Readonly<Record<string, unknown>>
}

/** One evaluator entry, ready to run. */
export interface CompiledEvaluator {
  readonly kind: 'llm_guardrail'
  readonly model: CatalogEntry
  /** `input.<name>`: the tool-call field that is classified. */
  readonly promptField: string
  /** `input.<name>` / `session.<name>` paths sent as context. */
  readonly contextFields: readonly string[]
  readonly thresholds: readonly Threshold[]
  /** 0 = no caching. */
  readonly cacheTtlMs: number
  readonly maxLatencyMs: number
}

/** An evaluator of a gate that matched the call. */
export interface GateEvaluator {
  readonly gateId: string
  readonly layer: LayerName
  readonly source: string
  /** Position among the round's evaluators (verdicts refer to it). */
  readonly index: number
  readonly evaluator: CompiledEvaluator
}

/** Why an evaluator abstained (the spec: an abstention is never an allow or a deny). */
export type AbstainKind = 'timeout' | 'provider_error' | 'malformed_answer' | 'not_configured' | 'unsupported_entry' | 'missing_field'

/** What one evaluator concluded. */
export interface GuardrailVerdict {
  readonly index: number
  readonly gateId: string
  readonly provider: string
  /** Catalog id of the model. */
  readonly model: string
  /** `skipped`: not asked, because an earlier evaluator already denied. */
  readonly effect: 'deny' | 'monitor' | 'allow' | 'abstain' | 'skipped'
  readonly reason: string
  readonly categories?: Readonly<Record<string, CategoryResult>>
  /** Categories that met the threshold that decided. */
  readonly matched?: readonly string[]
  readonly latencyMs: number
  readonly cached: boolean
  readonly abstained?: { readonly kind: AbstainKind; readonly detail: string }
}

/** The argument of the `guardrail` hook. `verdicts` is append-only: each tap pushes one per evaluator it ran. */
export interface GuardrailRound {
  readonly request: EvalRequest
  readonly ctx: EvalContext
  readonly local: Decision
  readonly evaluators: readonly GateEvaluator[]
  readonly verdicts: GuardrailVerdict[]
}

/** The guardrail stage of a decision, as traces show it. */
export interface GuardrailStage {
  /** False when an operator switched guardrails off (nothing was asked). */
  readonly enabled: boolean
  readonly local: Pick<Decision, 'verdict' | 'ledgerVerdict' | 'ruleId' | 'reason'>
  readonly verdict: 'deny' | 'monitor' | 'allow' | 'abstain' | 'disabled'
  readonly evaluators: readonly GuardrailVerdict[]
}
