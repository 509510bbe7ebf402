/**
 * The guardrail model catalog: every model a provider plugin brings, keyed by the id policies name in
 * `evaluate[].model`. `classifier_model` entries can run after local policy; `account_policy` entries
 * (a vendor account's own settings) are listed only and never run.
 */
import { extensionRegistry, type Registries } from '../plugin.ts'
import type { CatalogEntry } from '../types.ts'

/** The catalog of one engine (filled by provider plugins in `apply`). */
export function guardrailCatalog(registry: Registries): Map<string, CatalogEntry> {
  return extensionRegistry<CatalogEntry>(registry, 'guardrail-model')
}
