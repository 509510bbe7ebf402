/**
 * The facts `svc install --sandbox` hands every harness's `sandboxPlan`: svc's home, the daemon's ports, and the
 * files no agent command may write — every registered harness's hook and MCP configs (not only the harnesses
 * being installed: a command of one harness rewriting another's hooks switches svc off just as well), the sandbox
 * settings files a command could loosen (each harness's `sandboxSettings`), and svc's shipped policy packs — plus
 * the protected set the gates use (secrets unreadable; start-up files, `.svc.yaml`/`.svc/`, `.envrc` unwritable)
 * and the hosts the user allowed.
 */
import { SECRET_ENV_NAME, type HarnessDefinition, type HarnessEnv, type ProtectedList, type SandboxFacts } from '../../harness-contract/index.ts'
import { sandboxPaths } from './sandbox-paths.ts'

export interface SandboxFactsRequest {
  readonly registered: readonly HarnessDefinition[]
  readonly env: HarnessEnv
  readonly svcHome: string
  readonly ports: readonly number[]
  readonly policiesDir: string
  readonly system: boolean
  readonly systemRoot: string
  /** Hosts commands may reach (`--allow-domains`). */
  readonly allowedDomains?: readonly string[]
  /** The protected set (plugins/protected-set, with the user's SVC_PROTECTED_READ/WRITE), passed in by the CLI. */
  readonly set?: readonly ProtectedList[]
  /** The installing environment: variables whose name says secret are unset for commands too. */
  readonly vars?: Readonly<Record<string, string | undefined>>
}

export function sandboxFacts(req: SandboxFactsRequest): SandboxFacts {
  const configs = req.registered.flatMap((h) => h.configLocations(req.env).map((l) => l.path))
  const sandboxFiles = req.registered.flatMap((h) => h.sandboxSettings?.(req.env) ?? [])
  const set = req.set ?? []
  const paths = sandboxPaths(set, { home: req.env.home, repo: req.env.repo, policiesDir: req.policiesDir })
  // The declared secret variables, and those of the installing user's environment whose name says secret.
  const named = set.filter((l) => l.kind === 'env').flatMap((l) => l.globs)
  const envVars = [...new Set([...named, ...Object.keys(req.vars ?? {}).filter((n) => SECRET_ENV_NAME.test(n))])]
  return {
    svcHome: req.svcHome,
    ports: req.ports,
    protectedFiles: [...new Set([...configs, ...sandboxFiles, req.policiesDir])],
    secrets: { denyRead: paths.denyRead, allowRead: paths.allowRead, denyWrite: paths.denyWrite, envVars },
    allowedDomains: req.allowedDomains ?? [],
    system: req.system,
    systemRoot: req.systemRoot,
  }
}
