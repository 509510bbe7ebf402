/**
 * Llama Guard 3 behind an OpenAI-compatible chat endpoint (Ollama `http://127.0.0.1:11434/v1`, or vLLM):
 * `POST {base}/chat/completions` with `{model, messages, temperature: 0, stream: false}`; the answer text is
 * in `choices[0].message.content` (Ollama "OpenAI compatibility" docs). A credential is optional
 * (`LLAMA_GUARD_API_KEY`, sent as a bearer token, for a vLLM behind auth).
 *
 * Output format (Llama Guard 3 model card, meta-llama/PurpleLlama `Llama-Guard3/8B/MODEL_CARD.md`, and the
 * Ollama `llama-guard3` page): `safe`, or `unsafe` followed by a line of violated hazard codes such as
 * `S1,S10`. The codes are the MLCommons hazard taxonomy S1–S14; each is a raw flag (`high` unless the
 * model's catalog entry overrides it).
 */
import { flagSeverity, malformed, type CategoryResult } from '../../core/index.ts'
import { composeText, defineGuardrailProvider, postJson } from '../kit/index.ts'

/** S1–S14 of the Llama Guard 3 model card, as category names. */
export const HAZARDS: Readonly<Record<string, string>> = {
  S1: 'violent_crimes',
  S2: 'non_violent_crimes',
  S3: 'sex_related_crimes',
  S4: 'child_sexual_exploitation',
  S5: 'defamation',
  S6: 'specialized_advice',
  S7: 'privacy',
  S8: 'intellectual_property',
  S9: 'indiscriminate_weapons',
  S10: 'hate',
  S11: 'suicide_self_harm',
  S12: 'sexual_content',
  S13: 'elections',
  S14: 'code_interpreter_abuse',
}
const CATEGORIES = Object.values(HAZARDS)

export default defineGuardrailProvider({
  id: 'llama-guard',
  title: 'Llama Guard 3 (OpenAI-compatible chat endpoint: Ollama, vLLM)',
  defaultBaseUrl: 'http://127.0.0.1:11434/v1',
  needsKey: false,
  authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  models: [
    {
      model: 'llama-guard3:8b',
      kind: 'classifier_model',
      title: 'Llama Guard 3 8B',
      categories: CATEGORIES,
      flagSeverity: { child_sexual_exploitation: 'critical', indiscriminate_weapons: 'critical', code_interpreter_abuse: 'critical', defamation: 'medium', elections: 'medium' },
    },
    { model: 'llama-guard3:1b', kind: 'classifier_model', title: 'Llama Guard 3 1B', categories: CATEGORIES },
  ],
  async classify(input, connection) {
    const answer = (await postJson(connection, '/chat/completions', {
      model: input.model.model,
      messages: [{ role: 'user', content: composeText(input) }],
      temperature: 0,
      stream: false,
    })) as { choices?: { message?: { content?: unknown } }[] }
    const content = answer?.choices?.[0]?.message?.content
    if (typeof content !== 'string') malformed('choices[0].message.content is not a string')
    const [verdict, codes, ...rest] = content
      .trim()
      .split(/\r?\n/)
      .map((l) => l.trim())
    const categories: Record<string, CategoryResult> = Object.fromEntries(CATEGORIES.map((c) => [c, { severity: 'none', raw: false }]))
    if (verdict === 'safe' && codes === undefined) return { safe: true, categories, rationale: 'safe' }
    if (verdict !== 'unsafe' || !codes || rest.length > 0) malformed(`expected "safe" or "unsafe\\n<codes>", got ${JSON.stringify(content.slice(0, 60))}`)
    const flagged = codes.split(',').map((c) => c.trim())
    for (const code of flagged) {
      if (!/^S\d{1,2}$/.test(code)) malformed(`"${code}" is not a hazard code`)
      const name = HAZARDS[code] ?? code.toLowerCase()
      categories[name] = { severity: flagSeverity(true, name, input.model.flagSeverity), raw: true }
    }
    return { safe: false, categories, rationale: `unsafe: ${flagged.map((c) => `${c} ${HAZARDS[c] ?? 'unknown hazard'}`).join(', ')}` }
  },
})
