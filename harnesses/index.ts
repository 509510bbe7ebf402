/**
 * The built-in harness plugins, registered at startup in this order. Adding a harness is one folder and
 * one line in `harnessPlugins` (and dropping its id from PLANNED_HARNESSES, its paths from PLANNED_PROTECTED).
 * Everything status, doctor, self-protection, the sandbox layer and the hook protocol need to know about a
 * harness is a field of its definition (docs/harnesses.md). Shared helpers live in kit/, which is not a plugin.
 */
import claudeCode from './claude-code/index.ts'
import codex from './codex/index.ts'
import copilotCli from './copilot-cli/index.ts'
import cursor from './cursor/index.ts'
import gemini from './gemini/index.ts'
import opencode from './opencode/index.ts'
import type { EnginePlugin } from '../core/index.ts'
import { definePlannedHarnesses, type HarnessPlugin, type ProtectedPaths } from '../harness-contract/index.ts'

export const harnessPlugins: readonly HarnessPlugin[] = [claudeCode, codex, gemini, cursor, copilotCli, opencode]

/** Harness ids the project names but does not implement yet (DESIGN.md §4 naming): a 501, not a 404. */
export const PLANNED_HARNESSES: readonly string[] = ['factory', 'windsurf', 'cline']

/** What self-protection keeps from agents for the planned harnesses already (their hook, MCP and settings files). */
export const PLANNED_PROTECTED: ProtectedPaths = {
  files: [
    '**/.codeium/windsurf/hooks.json',
    '**/.codeium/windsurf/mcp_config.json',
    '**/.windsurf/hooks.json',
    '**/.factory/hooks.json',
    '**/.factory/mcp.json',
    '**/.factory/settings.json',
    '**/.clinerules/hooks/**',
    '**/Cline/Hooks/**',
    '**/cline_mcp_settings.json',
  ],
  dirs: ['**/.codeium/windsurf', '~/.codeium', '**/.windsurf', '**/.factory', '**/.clinerules', '**/.clinerules/hooks'],
  // Factory's CLI, and agent CLIs svc does not gate yet: their config commands and moved-config runs are kept from agents too.
  programs: ['droid', 'qwen', 'amp', 'goose'],
}

/** The whole harness family as the composition root registers it. */
export const harnessFamily: readonly EnginePlugin[] = [...harnessPlugins, definePlannedHarnesses(PLANNED_HARNESSES, PLANNED_PROTECTED)]
