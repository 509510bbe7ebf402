/**
 * The HarnessEnv the installer, status and doctor hand to harness definitions: the user's home, the
 * repository for repo scope, and the variables that relocate a harness's user configs (each harness's
 * `configVariables`). Without them svc would edit and check files the harness never reads.
 */
import type { HarnessDefinition, HarnessEnv } from '../../harness-contract/index.ts'

export function harnessEnvOf(vars: Readonly<Record<string, string | undefined>>, home: string, harnesses: Iterable<HarnessDefinition>, repo?: string): HarnessEnv {
  const env: Record<string, string> = {}
  for (const h of harnesses) for (const name of h.configVariables ?? []) if (vars[name]) env[name] = vars[name]
  return { home, ...(repo ? { repo } : {}), env }
}
