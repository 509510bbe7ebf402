/**
 * The core's public face: the only module plugins, harnesses, providers, the daemon's host and the CLI import
 * from the core.
 * @module
 */
export type * from './types.ts'
export { STAGE, createHooks, type EngineHooks, type CompiledLeaf, type PredicateTest } from './hooks.ts'
export { guardrailCatalog } from './guardrail/catalog.ts'
export { DEFAULT_MAX_LATENCY_MS, llmGuardrailEvaluator } from './guardrail/evaluator.ts'
export type { CompiledEvaluator } from './types.ts'
export {
  envPrefix,
  guardrailProviders,
  type GuardrailProviderDefinition,
  type GuardrailProviderPlugin,
  type ProviderInput,
  type ProviderModel,
  type ProviderRuntime,
  type ProviderTestResult,
} from './guardrail/provider.ts'
export { categoriesMeeting, flagSeverity, isSeverity } from './guardrail/severity.ts'
export type { CategoryResult, ClassifierResult, Severity, Threshold } from './types.ts'
export { GuardrailFailure, malformed, type ProviderConnection } from './guardrail/failure.ts'
export {
  addToPolicyList,
  applyPlugins,
  createRegistries,
  broughtSurfaces,
  defineGateKind,
  extensionRegistry,
  registerOnce,
  type CommandDeclaration,
  type CommandIo,
  type CommandManifest,
  type EnginePlugin,
  type EvaluatorKind,
  type EvaluatorWhere,
  type GateKind,
  type GateKindPlugin,
  type GateWhere,
  type JsonSchema,
  type PluginHost,
  type Registries,
  type Surface,
} from './plugin.ts'
export type { IndexKeys } from './types.ts'
export { ApiProblem, EngineError, ERR, formatEngineError, RefusalError, type ProblemCode } from './errors.ts'
export { callPayloadBytes, canonicalSha256, payloadDigest, payloadHash, sha256, type PayloadDigest, type PayloadFields } from './hash.ts'
export { checkedPayloadHash } from './engine/read-call.ts'
export { lazyValidator } from './lazy-ajv.ts'
export { writePrivateFile } from './atomic-file.ts'
export { readText } from './read-text.ts'
export { createEngine } from './engine.ts'
export type { CheckResult, Engine, EngineOptions } from './engine/contract.ts'
export { combine } from './decision.ts'
export { compileGlob, isLiteralGlob, type Glob } from './match/glob.ts'
export { CASE_INSENSITIVE_FS, type GlobRoots } from './match/home-globs.ts'
export { assertKnownPortBindings, bindPortGlob, namesSvcPorts, protectedPorts, SVC_PORTS, svcPortsKey, svcPortsOf } from './match/svc-ports.ts'
export { homeGlobsFor } from './match/home-glob-cache.ts'
export { looksLikePatch, MAX_PATCH_TARGETS, patchedPaths, patchTargets, type PatchChange } from './match/patch-targets.ts'
export { compileSafeRegex, type SafeRegex } from './match/regex.ts'
export { lexicalPath, pathSpellings } from './match/paths.ts'
export { findUrls, parseCallUrl } from './match/urls.ts'
export { mcpToolName, UNRESOLVED_MCP_SERVER } from './match/mcp-names.ts'
export { unwrapArgs, wrapArgs, type WrappedCommand } from './mcp-wrap.ts'
export { GateCompiler } from './policy/compile.ts'
export type { CompiledGate, CompiledNode, DisabledBy } from './policy/compiled.ts'
export { evaluateNode, type GateTrace, type NodeTrace } from './policy/evaluate.ts'
export { parsePolicy, type ParsedPolicy, type RawGate } from './policy/parse.ts'
export { gateSchema, policyFileSchema } from './policy/schema.ts'
export { activeBundleLink, bundleSources, bundleSourcesAt, isBundleSource, packChoices, packFloorRegistry, type PackFloor, type PolicySource } from './policy/sources.ts'
export { modeFloorRegistry } from './state/mode-floor.ts'
export type { PolicyFile } from './policy/policy-file.ts'
export type { DisableFacts } from './policy/disable-seal.ts'
export { parseDuration } from './duration.ts'
export { SessionStore, type Session } from './sessions/store.ts'
export { sessionAdvice, type RenewerState } from './sessions/expired.ts'
// The ledger for fleet plugins and the CLI (witnessing, export, verification): the writer, a reader of its own,
// checkpoints.log.
export { SqliteLedger, type Ledger } from './ledger/ledger.ts'
export { LedgerStore } from './ledger/store.ts'
export { readCheckpointLog, type CheckpointLogEntry } from './ledger/checkpoint-log.ts'
export { ledgerMarkerPath } from './ledger/ledger-guard.ts'
export type { CosignatureView } from './ledger/cosignature-view.ts'
export { startWorker } from './worker-thread.ts'
// Ledger crypto for fleet plugins and the CLI's signers (witness cosignatures, log keys, host keys, session
// certificates): C2SP signed notes, RFC 6962 hashes, Ed25519, the trusted host keys.
export { checkpointText, noteVerifierKey, parseCheckpoint, signNote, verifyNote } from './ledger/signed-note.ts'
export { hashChildren, hashLeaf } from './ledger/merkle.ts'
export { newSeed, signingKeyFromSeed, signNative, verifyNative, type SignatureVerifier, type SigningKey } from './ledger/ed25519.ts'
export { readTrustedHostKeys, readTrustFile, trustFilePath, trustHostKey, type TrustedKeyRecord } from './trust/host-keys.ts'
export { keyId, sessionIdFor, signSessionBundle } from './trust/session-cert.ts'
