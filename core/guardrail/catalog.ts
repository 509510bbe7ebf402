/**
 * The guardrail model catalog: every model a provider plugin brings, keyed by the id policies name in
 * `evaluate[].model`. `classifier_model` entries can run after local policy; `account_policy` entries
 * (a vendor account's own settings) are listed only and never run.
 */
import { extensionRegistry, type Registries } from '../plugin.ts'
import type { Severity } from './severity.ts'

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

/** The catalog of one engine (filled by provider plugins in `apply`). */
export function guardrailCatalog(registry: Registries): Map<string, CatalogEntry> {
  return extensionRegistry<CatalogEntry>(registry, 'guardrail-model')
}
