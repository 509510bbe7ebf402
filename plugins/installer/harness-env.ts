/**
 * The HarnessEnv the installer, status and doctor hand to harness definitions: the user's home, the
 * repository for repo scope, and the variables that relocate a harness's user configs (Claude Code's
 * CLAUDE_CONFIG_DIR, Codex's CODEX_HOME, Gemini CLI's GEMINI_CLI_HOME). Without them svc would edit and
 * check files the harness never reads.
 */
import type { HarnessEnv } from '../../core/index.ts'

export const RELOCATING_VARIABLES = ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME'] as const

export function harnessEnvOf(vars: Readonly<Record<string, string | undefined>>, home: string, repo?: string): HarnessEnv {
  const env: Record<string, string> = {}
  for (const name of RELOCATING_VARIABLES) if (vars[name]) env[name] = vars[name]
  return { home, ...(repo ? { repo } : {}), env }
}
