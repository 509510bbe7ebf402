/**
 * Cursor's agent sandbox as svc's second layer: `~/.cursor/sandbox.json` (cursor.com/docs/reference/sandbox):
 * `type: "workspace_readwrite"` (read/write in the workspace only; `insecure_none` would switch it off) and
 * `networkPolicy.default: "deny"`. The per-repo `<workspace>/.cursor/sandbox.json` outranks this file, so svc's
 * gate denies an agent writing one (policies/self-protection.yaml), and the `sandbox` flag of
 * `beforeShellExecution` lets the gate refuse a command Cursor would run unsandboxed. Cursor documents no key
 * that denies reading a path and no root-owned sandbox file (team-admin policies live in its dashboard), so
 * `--system` has nothing to write here.
 */
import { join } from 'node:path'
import type { HarnessInstallPlan, InstallContext, SandboxFacts } from '../../harness-contract/index.ts'
import { setting } from '../kit/index.ts'

export function cursorSandboxPlan(ctx: InstallContext & { readonly sandbox: SandboxFacts }): HarnessInstallPlan {
  if (ctx.sandbox.system) return { entries: [], notes: ['Cursor has no root-owned sandbox settings file; set the sandbox in the team admin dashboard'] }
  const file = join(ctx.home, '.cursor', 'sandbox.json')
  return {
    entries: [setting(file, ['type'], 'workspace_readwrite'), setting(file, ['networkPolicy', 'default'], 'deny')],
    notes: [
      `terminal commands run sandboxed with no network (the daemon's ports ${ctx.sandbox.ports.join(', ')} included); Cursor's sandbox does not hide ${ctx.sandbox.svcHome} from reads`,
    ],
  }
}
