/** What text-only vendors classify. */
import type { ProviderInput } from '../../core/index.ts'

/** The prompt text followed by one `field: value` line per context field (what text-only vendors classify). */
export function composeText(input: ProviderInput): string {
  if (input.context.length === 0) return input.text
  return `${input.text}\n\n${input.context.map((c) => `${c.field}: ${c.value}`).join('\n')}`
}
