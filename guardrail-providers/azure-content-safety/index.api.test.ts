import { describe, it } from 'vitest'
import { runProviderCases } from '../../testing/guardrail-provider-tester.ts'
import azure from './index.ts'

/** An AnalyzeTextResult as documented for text:analyze (api-version 2024-09-01). */
function analysis(severities: Record<string, number>) {
  return { json: { blocklistsMatch: [], categoriesAnalysis: Object.entries(severities).map(([category, severity]) => ({ category, severity })) } }
}

runProviderCases(
  azure,
  {
    answers: [
      { name: 'all zero', model: 'text-analyze', answer: analysis({ Hate: 0, SelfHarm: 0, Sexual: 0, Violence: 0 }), expect: { safe: true, categories: {} } },
      {
        name: 'four levels: 2 → low, 4 → medium, 6 → high',
        model: 'text-analyze',
        answer: analysis({ Hate: 2, SelfHarm: 0, Sexual: 4, Violence: 6 }),
        expect: { safe: false, categories: { hate: 'low', sexual: 'medium', violence: 'high' }, rationale: /violence=high/ },
      },
      {
        name: 'eight levels: 1 → low, 3 → medium, 5 → high, 7 → critical',
        model: 'text-analyze-8',
        answer: analysis({ Hate: 1, SelfHarm: 3, Sexual: 5, Violence: 7 }),
        expect: { safe: false, categories: { hate: 'low', self_harm: 'medium', sexual: 'high', violence: 'critical' } },
      },
    ],
    malformed: [
      { name: 'an odd severity under four levels', model: 'text-analyze', answer: analysis({ Hate: 3 }) },
      { name: 'a severity past the eight-level scale', model: 'text-analyze-8', answer: analysis({ Violence: 9 }) },
      { name: 'a string severity', model: 'text-analyze', answer: { json: { categoriesAnalysis: [{ category: 'Hate', severity: 'high' }] } } },
      { name: 'no categoriesAnalysis', model: 'text-analyze', answer: { json: { blocklistsMatch: [] } } },
    ],
  },
  { describe, it },
)
