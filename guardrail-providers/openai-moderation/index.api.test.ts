import { describe, it } from 'vitest'
import { runProviderCases } from '../../testing/guardrail-provider-tester.ts'
import openai from './index.ts'

const OMNI = [
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

/** A recorded-shape moderation answer (OpenAI API reference, "The moderation object"). */
function answer(model: string, flaggedCategories: string[], categories = OMNI) {
  return {
    json: {
      id: 'modr-0d7f1b8e',
      model,
      results: [
        {
          flagged: flaggedCategories.length > 0,
          categories: Object.fromEntries(categories.map((c) => [c, flaggedCategories.includes(c)])),
          category_scores: Object.fromEntries(categories.map((c) => [c, flaggedCategories.includes(c) ? 0.91 : 0.0004])),
          category_applied_input_types: Object.fromEntries(categories.map((c) => [c, ['text']])),
        },
      ],
    },
  }
}

runProviderCases(
  openai,
  {
    answers: [
      { name: 'nothing flagged', model: 'omni-moderation-latest', answer: answer('omni-moderation-latest', []), expect: { safe: true, categories: {}, rationale: /no category/ } },
      {
        name: 'a true flag maps to high by default',
        model: 'omni-moderation-latest',
        answer: answer('omni-moderation-latest', ['violence']),
        expect: { safe: false, categories: { violence: 'high' }, rationale: /violence 0\.91/ },
      },
      {
        name: 'per-model overrides: sexual/minors is critical and harassment medium on omni',
        model: 'omni-moderation-latest',
        answer: answer('omni-moderation-latest', ['sexual/minors', 'harassment']),
        expect: { safe: false, categories: { 'sexual/minors': 'critical', harassment: 'medium' } },
      },
      {
        name: 'the legacy text model has no overrides: the same flags are high',
        model: 'text-moderation-latest',
        answer: answer(
          'text-moderation-007',
          ['sexual/minors', 'harassment'],
          OMNI.filter((c) => !c.startsWith('illicit')),
        ),
        expect: { safe: false, categories: { 'sexual/minors': 'high', harassment: 'high' } },
      },
    ],
    malformed: [
      { name: 'empty results', model: 'omni-moderation-latest', answer: { json: { id: 'x', model: 'm', results: [] } } },
      { name: 'a score where a flag belongs', model: 'omni-moderation-latest', answer: { json: { results: [{ flagged: true, categories: { violence: 0.9 } }] } } },
      { name: 'flagged missing', model: 'omni-moderation-latest', answer: { json: { results: [{ categories: { violence: true } }] } } },
    ],
  },
  { describe, it },
)
