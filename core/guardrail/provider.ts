/**
 * The guardrail provider contract: what a provider folder defines (guardrail-providers/kit's
 * `defineGuardrailProvider` turns it into a plugin that is spec-correct by construction) and what the
 * engine's registry holds for each provider (listed and tested by the guardrail endpoints).
 */
import { extensionRegistry, type EnginePlugin, type Registries } from '../plugin.ts'
import type { CatalogEntry, ClassifierResult, EvalContext, EvalRequest, GateEvaluator, GuardrailVerdict } from '../types.ts'
import type { ProviderConnection } from './failure.ts'

/** What an adapter classifies: the prompt field's text and the context fields, for one catalog model. */
export interface ProviderInput {
  readonly text: string
  readonly context: readonly { readonly field: string; readonly value: string }[]
  readonly model: CatalogEntry
}

/** A catalog entry as a provider declares it (the helper adds `provider` and the `<provider>/<model>` id). */
export type ProviderModel = Omit<CatalogEntry, 'provider' | 'id'>

export interface GuardrailProviderDefinition {
  /** Kebab-case id; the credential is `<ID>_API_KEY` and the base URL `<ID>_BASE_URL` (upper case, `-` → `_`). */
  readonly id: string
  readonly title: string
  /** Used when `<ID>_BASE_URL` is not set; without either the provider is not configured. */
  readonly defaultBaseUrl?: string
  /** False for local servers that need no credential (e.g. Ollama). */
  readonly needsKey: boolean
  /** The request headers that carry the credential. */
  authHeaders(key: string): Record<string, string>
  readonly models: readonly ProviderModel[]
  /** Tap stage on the guardrail hook (cheaper providers first). */
  readonly stage?: number
  /** One vendor call mapped to our scale; throw (or call `malformed`) on anything unexpected. */
  classify(input: ProviderInput, connection: ProviderConnection): Promise<ClassifierResult>
}

/** A provider as the engine runs it (listed and tested by the guardrail endpoints). */
export interface ProviderRuntime {
  readonly id: string
  readonly title: string
  /** The base URL without user info or query (display-safe). */
  readonly baseUrl: string | undefined
  readonly credentialEnv: string
  readonly configured: boolean
  readonly models: readonly CatalogEntry[]
  /** Runs one evaluator; never throws (every failure is an abstaining verdict). */
  evaluate(item: GateEvaluator, request: EvalRequest, ctx: EvalContext): Promise<GuardrailVerdict>
  /** A real call for `POST /v1/guardrails/providers/{id}/test`. */
  test(model: CatalogEntry, text: string, maxLatencyMs: number): Promise<ProviderTestResult>
}

export interface ProviderTestResult {
  readonly provider: string
  readonly model: string
  readonly reachable: boolean
  readonly latency_ms: number
  readonly result?: ClassifierResult
  readonly abstained?: { readonly kind: string; readonly detail: string }
}

export interface GuardrailProviderPlugin extends EnginePlugin {
  readonly provider: GuardrailProviderDefinition
}

/** The providers of one engine, by id. */
export function guardrailProviders(registry: Registries): Map<string, ProviderRuntime> {
  return extensionRegistry<ProviderRuntime>(registry, 'guardrail-provider')
}

/** `LLAMA_GUARD` for `llama-guard`: the prefix of `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL`. */
export function envPrefix(id: string): string {
  return id.toUpperCase().replaceAll('-', '_')
}
