import { describe, it } from 'vitest'
import { runProviderCases } from '../../testing/guardrail-provider-tester.ts'
import llamaGuard from './index.ts'

/** An OpenAI-compatible chat completion as Ollama returns it, with Llama Guard's text as the message. */
function completion(content: string, model = 'llama-guard3:8b') {
  return {
    json: {
      id: 'chatcmpl-291',
      object: 'chat.completion',
      created: 1763800000,
      model,
      system_fingerprint: 'fp_ollama',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 212, completion_tokens: 5, total_tokens: 217 },
    },
  }
}

runProviderCases(
  llamaGuard,
  {
    answers: [
      { name: 'safe', model: 'llama-guard3:8b', answer: completion('safe'), expect: { safe: true, categories: {} } },
      {
        name: 'unsafe S1,S10: raw flags map to high',
        model: 'llama-guard3:8b',
        answer: completion('unsafe\nS1,S10'),
        expect: { safe: false, categories: { violent_crimes: 'high', hate: 'high' }, rationale: /S1 violent_crimes, S10 hate/ },
      },
      {
        name: 'per-model override: S14 code interpreter abuse is critical on the 8B entry',
        model: 'llama-guard3:8b',
        answer: completion('unsafe\nS14'),
        expect: { safe: false, categories: { code_interpreter_abuse: 'critical' } },
      },
      {
        name: 'the 1B entry has no overrides: S14 is high',
        model: 'llama-guard3:1b',
        answer: completion('unsafe\nS14', 'llama-guard3:1b'),
        expect: { safe: false, categories: { code_interpreter_abuse: 'high' } },
      },
      { name: 'surrounding whitespace is tolerated', model: 'llama-guard3:1b', answer: completion('\n\nsafe\n', 'llama-guard3:1b'), expect: { safe: true, categories: {} } },
    ],
    malformed: [
      { name: 'unsafe without codes', model: 'llama-guard3:8b', answer: completion('unsafe') },
      { name: 'free text', model: 'llama-guard3:8b', answer: completion('I cannot help with that.') },
      { name: 'a bad hazard code', model: 'llama-guard3:8b', answer: completion('unsafe\nviolence') },
      { name: 'content is not a string', model: 'llama-guard3:8b', answer: { json: { choices: [{ message: { content: null } }] } } },
    ],
  },
  { describe, it },
)
