/**
 * Codex CLI's own sandbox as svc's second layer. Settings from developers.openai.com/codex (config reference,
 * "Sandbox and approvals") and openai/codex docs/config.md: `sandbox_mode = "workspace-write"` (commands write only
 * the workspace and temp dirs; `.git` and `.codex` inside it are re-bound read-only, codex-rs/linux-sandbox
 * README) and `sandbox_workspace_write.network_access = false` (no network, loopback included: openai/codex#20917).
 * With `--system`, `/etc/codex/requirements.toml` `allowed_sandbox_modes` keeps `danger-full-access` out of reach
 * (developers.openai.com/codex/enterprise/managed-configuration). The legacy keys are used, not the beta permission
 * profiles (`default_permissions`, which do not compose with them: developers.openai.com/codex/permissions), so
 * reads of `$SVC_HOME` stay possible for Codex's commands: svc's static gate and the daemon's authenticated shim
 * carry that part (README, "Two layers").
 */
import { join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import type { HarnessInstallPlan, InstallContext, SandboxFacts } from '../../harness-contract/index.ts'
import { TOML_SANDBOX_HEADER } from '../kit/index.ts'

const USER_BLOCK = `${TOML_SANDBOX_HEADER}\nsandbox_mode = "workspace-write"\nsandbox_workspace_write.network_access = false\n\n`
const SYSTEM_BLOCK = `${TOML_SANDBOX_HEADER}\nallowed_sandbox_modes = ["read-only", "workspace-write"]\n\n`

/** Top-level keys of a TOML file that would collide with our block (or make Codex ignore it). */
function collisions(text: string | undefined, keys: readonly string[], file: string): string[] {
  if (text === undefined) return []
  let parsed: Record<string, unknown>
  try {
    parsed = parseToml(text) as Record<string, unknown>
  } catch (cause) {
    throw new Error(`${file} is not valid TOML (${(cause as Error).message.split('\n')[0]}); fix it before installing`)
  }
  return keys.filter((k) => k in parsed)
}

export function codexSandboxPlan(ctx: InstallContext & { readonly sandbox: SandboxFacts }, codexHome: string): HarnessInstallPlan {
  const file = ctx.sandbox.system ? join(ctx.sandbox.systemRoot, 'codex', 'requirements.toml') : join(codexHome, 'config.toml')
  const block = ctx.sandbox.system ? SYSTEM_BLOCK : USER_BLOCK
  const text = ctx.readText(file)
  if (!text?.includes(block)) {
    // svc never overrides a sandbox choice already made in the file: it says which key to settle by hand.
    const keys = ctx.sandbox.system ? ['allowed_sandbox_modes'] : ['sandbox_mode', 'sandbox_workspace_write', 'default_permissions']
    const found = collisions(text, keys, file)
    if (found.length > 0)
      throw new Error(
        `${file} already sets ${found.join(', ')}; remove ${found.length === 1 ? 'it' : 'them'} (svc writes its own sandbox settings) and run \`svc install --sandbox\` again`,
      )
  }
  const notes = [
    `commands run in workspace-write with no network (the daemon's ports ${ctx.sandbox.ports.join(', ')} included); Codex's sandbox does not hide ${ctx.sandbox.svcHome} from reads`,
    ctx.sandbox.system ? '' : 'a user can still start Codex with --sandbox danger-full-access; `sudo svc install --sandbox --system` forbids it in /etc/codex/requirements.toml',
  ].filter(Boolean)
  return { entries: [{ format: 'toml', file, text: block, position: 'start', block: 'sandbox' }], notes }
}
