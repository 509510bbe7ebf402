/**
 * Azure AI Content Safety, text analysis: `POST {endpoint}/contentsafety/text:analyze?api-version=2024-09-01`
 * with the key in `Ocp-Apim-Subscription-Key` (Microsoft Learn, REST "Text Operations - Analyze Text").
 * Request `{text, categories: [Hate, SelfHarm, Sexual, Violence], outputType}`; response
 * `{blocklistsMatch: [...], categoriesAnalysis: [{category, severity}]}`. Severities are ordinal:
 * FourSeverityLevels answers 0, 2, 4, 6; EightSeverityLevels answers 0–7 (Azure SDK `TextCategoriesAnalysis`).
 * The endpoint is per resource, so `AZURE_CONTENT_SAFETY_BASE_URL` must be set.
 */
import { GuardrailFailure, malformed, type CategoryResult, type Severity } from '../../core/index.ts'
import { composeText, defineGuardrailProvider, postJson } from '../kit/index.ts'

const API_VERSION = '2024-09-01'
/** The service refuses longer text (10k Unicode code points per request). */
const MAX_TEXT_CODE_POINTS = 10_000
const NAMES: Readonly<Record<string, string>> = { Hate: 'hate', SelfHarm: 'self_harm', Sexual: 'sexual', Violence: 'violence' }

const FOUR: Readonly<Record<number, Severity>> = { 0: 'none', 2: 'low', 4: 'medium', 6: 'high' }
const EIGHT: readonly Severity[] = ['none', 'low', 'low', 'medium', 'medium', 'high', 'high', 'critical']

/** Maps a vendor severity of the given output type onto our scale; undefined when it is off that scale. */
export function azureSeverity(value: unknown, outputType: string): Severity | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined
  return outputType === 'EightSeverityLevels' ? EIGHT[value] : FOUR[value]
}

export default defineGuardrailProvider({
  id: 'azure-content-safety',
  title: 'Azure AI Content Safety (text:analyze)',
  needsKey: true,
  authHeaders: (key) => ({ 'ocp-apim-subscription-key': key }),
  models: [
    {
      model: 'text-analyze',
      kind: 'classifier_model',
      title: 'Text analysis, four severity levels',
      categories: Object.values(NAMES),
      options: { outputType: 'FourSeverityLevels' },
    },
    {
      model: 'text-analyze-8',
      kind: 'classifier_model',
      title: 'Text analysis, eight severity levels',
      categories: Object.values(NAMES),
      options: { outputType: 'EightSeverityLevels' },
    },
    { model: 'blocklists', kind: 'account_policy', title: 'Text blocklists configured on the Azure resource (listed only)', categories: [] },
  ],
  async classify(input, connection) {
    const text = composeText(input)
    if ([...text].length > MAX_TEXT_CODE_POINTS) throw new GuardrailFailure('unsupported_entry', `text is longer than the ${MAX_TEXT_CODE_POINTS} code points Azure accepts`, false)
    const outputType = String(input.model.options?.outputType ?? 'FourSeverityLevels')
    const answer = (await postJson(connection, `/contentsafety/text:analyze?api-version=${API_VERSION}`, { text, categories: Object.keys(NAMES), outputType })) as {
      categoriesAnalysis?: unknown
    }
    const analysis = answer?.categoriesAnalysis
    if (!Array.isArray(analysis)) malformed('categoriesAnalysis is not a list')
    const categories: Record<string, CategoryResult> = {}
    for (const item of analysis as { category?: unknown; severity?: unknown }[]) {
      const name = typeof item?.category === 'string' ? (NAMES[item.category] ?? item.category.toLowerCase()) : undefined
      const severity = azureSeverity(item?.severity, outputType)
      if (!name || !severity) malformed(`categoriesAnalysis item ${JSON.stringify(item).slice(0, 80)} is off the ${outputType} scale`)
      categories[name] = { severity, raw: severity !== 'none' }
    }
    const hits = Object.entries(categories).filter(([, c]) => c.raw)
    return { safe: hits.length === 0, categories, rationale: hits.length ? hits.map(([n, c]) => `${n}=${c.severity}`).join(', ') : 'every category at severity 0' }
  },
})
