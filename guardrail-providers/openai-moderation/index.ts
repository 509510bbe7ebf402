/**
 * OpenAI moderation (`POST {base}/moderations`, `Authorization: Bearer $OPENAI_API_KEY`).
 *
 * Wire format (OpenAI API reference, "Moderations": request `{model, input}`; response
 * `{id, model, results: [{flagged, categories: {<name>: boolean}, category_scores: {<name>: number},
 * category_applied_input_types}]}`; as mirrored by the generated clients openai-client-base
 * `ModerationResultBody` and langchain `OpenAIClient.Moderations.Moderation`). Each category is a raw
 * boolean: `true` maps to `high` unless the model's catalog entry overrides it.
 */
import { flagSeverity, malformed, type CategoryResult } from '../../core/index.ts'
import { composeText, defineGuardrailProvider, postJson } from '../kit/index.ts'

const OMNI_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
]
const TEXT_CATEGORIES = OMNI_CATEGORIES.filter((c) => !c.startsWith('illicit'))

interface ModerationResult {
  flagged?: unknown
  categories?: unknown
  category_scores?: unknown
}

export default defineGuardrailProvider({
  id: 'openai',
  title: 'OpenAI moderation',
  defaultBaseUrl: 'https://api.openai.com/v1',
  needsKey: true,
  authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  models: [
    {
      model: 'omni-moderation-latest',
      kind: 'classifier_model',
      title: 'OpenAI omni moderation',
      categories: OMNI_CATEGORIES,
      // What a flag means differs by category: sexual content involving minors and self-harm instructions are the worst.
      flagSeverity: { 'sexual/minors': 'critical', 'self-harm/instructions': 'critical', 'illicit/violent': 'critical', harassment: 'medium' },
    },
    { model: 'text-moderation-latest', kind: 'classifier_model', title: 'OpenAI text moderation (legacy)', categories: TEXT_CATEGORIES },
    { model: 'usage-policies', kind: 'account_policy', title: "OpenAI account usage policies (enforced by OpenAI on the account's own traffic)", categories: [] },
  ],
  async classify(input, connection) {
    const answer = (await postJson(connection, '/moderations', { model: input.model.model, input: composeText(input) })) as { results?: unknown }
    const results = answer?.results
    if (!Array.isArray(results) || results.length === 0) malformed('no results[]')
    const result = results[0] as ModerationResult
    if (typeof result?.flagged !== 'boolean') malformed('results[0].flagged is not a boolean')
    const flags = result.categories
    if (flags === null || typeof flags !== 'object' || Array.isArray(flags)) malformed('results[0].categories is not an object')
    const scores = (result.category_scores ?? {}) as Record<string, unknown>
    const categories: Record<string, CategoryResult> = {}
    for (const [name, flagged] of Object.entries(flags)) {
      if (typeof flagged !== 'boolean') malformed(`results[0].categories.${name} is not a boolean`)
      categories[name] = { severity: flagSeverity(flagged, name, input.model.flagSeverity), raw: flagged }
    }
    const hits = Object.keys(categories).filter((c) => categories[c]!.raw)
    const score = (c: string) => (typeof scores[c] === 'number' ? ` ${(scores[c] as number).toFixed(2)}` : '')
    return { safe: !result.flagged, categories, rationale: hits.length ? `flagged: ${hits.map((c) => `${c}${score(c)}`).join(', ')}` : 'no category flagged' }
  },
})
