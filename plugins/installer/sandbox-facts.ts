/**
 * The facts `svc install --sandbox` hands every harness's `sandboxPlan`: svc's home, the daemon's ports, and the
 * files no agent command may write — every registered harness's hook and MCP configs (not only the harnesses
 * being installed: a command of one harness rewriting another's hooks switches svc off just as well), the sandbox
 * settings files a command could loosen (each harness's `sandboxSettings`), and svc's shipped policy packs.
 */
import type { HarnessDefinition, HarnessEnv, SandboxFacts } from '../../harness-contract/index.ts'

export interface SandboxFactsRequest {
  readonly registered: readonly HarnessDefinition[]
  readonly env: HarnessEnv
  readonly svcHome: string
  readonly ports: readonly number[]
  readonly policiesDir: string
  readonly system: boolean
  readonly systemRoot: string
}

export function sandboxFacts(req: SandboxFactsRequest): SandboxFacts {
  const configs = req.registered.flatMap((h) => h.configLocations(req.env).map((l) => l.path))
  const sandboxFiles = req.registered.flatMap((h) => h.sandboxSettings?.(req.env) ?? [])
  return {
    svcHome: req.svcHome,
    ports: req.ports,
    protectedFiles: [...new Set([...configs, ...sandboxFiles, req.policiesDir])],
    system: req.system,
    systemRoot: req.systemRoot,
  }
}
