/**
 * The only module plugins, harnesses, providers and the CLI import from the core.
 * @module
 */
export type * from './types.ts'
export { LAYERS } from './types.ts'
export { STAGE, createHooks, type EngineHooks, type CompiledLeaf, type PredicateTest, type GuardrailVerdict } from './hooks.ts'
export {
  applyPlugins,
  createRegistries,
  defineGateKind,
  extensionRegistry,
  registerOnce,
  type EnginePlugin,
  type EvaluatorKind,
  type GateKind,
  type GateKindPlugin,
  type GateWhere,
  type JsonSchema,
  type PluginHost,
  type Registries,
} from './plugin.ts'
export { ApiProblem, EngineError, ERR, formatEngineError, type ProblemCode } from './errors.ts'
export { createEngine, payloadHash, type CheckResult, type Engine, type EngineOptions } from './engine.ts'
export { combine, refuse, isStrongSigner, assertNotLoosened } from './decision.ts'
export { compileGlob, type Glob } from './match/glob.ts'
export { compileSafeRegex, type SafeRegex } from './match/regex.ts'
export { canonicalPath } from './match/paths.ts'
export { findUrls, parseCallUrl } from './match/urls.ts'
export type { CompiledGate } from './policy/compile.ts'
export type { Session } from './sessions/store.ts'
