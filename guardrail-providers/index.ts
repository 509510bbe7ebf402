/** Guardrail provider plugins (one folder per provider kind or vendor), in registration order. */
import type { EnginePlugin } from '../core/index.ts'

export const guardrailPlugins: readonly EnginePlugin[] = []
