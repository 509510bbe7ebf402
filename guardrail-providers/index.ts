/**
 * Guardrail provider plugins (one folder per vendor), in tap order, after the `llm_guardrail` evaluator
 * kind they serve. Adding a provider is one folder and one line here.
 */
import { llmGuardrailEvaluator, type EnginePlugin } from '../core/index.ts'
import azureContentSafety from './azure-content-safety/index.ts'
import llamaGuard from './llama-guard/index.ts'
import openaiModeration from './openai-moderation/index.ts'

export const guardrailPlugins: readonly EnginePlugin[] = [llmGuardrailEvaluator, llamaGuard, openaiModeration, azureContentSafety]
