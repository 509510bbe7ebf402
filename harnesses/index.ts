/**
 * The built-in harness plugins, registered at startup in this order. Adding a harness is one folder and
 * one line in `harnessPlugins` (and dropping its id from PLANNED_HARNESSES). Shared wire-format helpers
 * live in kit/, which is not a plugin.
 */
import claudeCode from './claude-code/index.ts'
import codex from './codex/index.ts'
import cursor from './cursor/index.ts'
import gemini from './gemini/index.ts'
import { definePlannedHarnesses, type EnginePlugin, type HarnessPlugin } from '../core/index.ts'

export const harnessPlugins: readonly HarnessPlugin[] = [claudeCode, codex, gemini, cursor]

/** Harness ids the project names but does not implement yet (DESIGN.md §4 naming): a 501, not a 404. */
export const PLANNED_HARNESSES: readonly string[] = ['copilot-cli', 'factory', 'windsurf', 'cline', 'opencode']

/** The whole harness family as the composition root registers it. */
export const harnessFamily: readonly EnginePlugin[] = [...harnessPlugins, definePlannedHarnesses(PLANNED_HARNESSES)]
