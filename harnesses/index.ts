/** Harness plugins (one folder per harness), in registration order. */
import type { EnginePlugin } from '../core/index.ts'

export const harnessPlugins: readonly EnginePlugin[] = []
