/**
 * The composition root: every plugin the daemon and the CLI start with, in one list.
 * Gate kinds and normalisers live in plugins/, harnesses in harnesses/, providers in guardrail-providers/.
 */
import type { EnginePlugin } from '../core/index.ts'
import { guardrailPlugins } from '../guardrail-providers/index.ts'
import { harnessFamily } from '../harnesses/index.ts'
import { builtinPlugins } from '../plugins/index.ts'

export const allPlugins: readonly EnginePlugin[] = [...builtinPlugins, ...harnessFamily, ...guardrailPlugins]
