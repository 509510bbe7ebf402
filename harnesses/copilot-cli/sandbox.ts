/**
 * Copilot CLI's command sandbox as svc's second layer (`copilot help sandbox`, pinned binary): `sandbox` in the
 * user's `settings.json`. `enabled: true` runs shell commands in Microsoft Execution Containers (bubblewrap on
 * Linux, Seatbelt on macOS); `allowBypass: false` removes the per-command escape hatch; `userPolicy.filesystem.
 * deniedPaths` takes `$SVC_HOME` away, `readonlyPaths` the hook and policy files; `userPolicy.network.
 * allowLocalNetwork: false` keeps commands off this machine's services (the daemon's ports included). svc's
 * hooks run in the Copilot host process, outside the sandbox, so they still reach the daemon; local MCP servers
 * stay unsandboxed (`sandboxMcpServers` untouched) because a wrapped server's `svc mcp-proxy` must reach it too.
 * Copilot documents no root-owned settings file (an organization's policy comes from GitHub or device MDM), so
 * `--system` has nothing to write. The Linux backend also needs slirp4netns, iptables and /dev/net/tun (`copilot help
 * sandbox`, "Supported hosts"); with them, test/harm.e2e.test.ts runs the real binary in it (docs/threat-model.md).
 */
import type { HarnessInstallPlan, InstallContext, SandboxFacts } from '../../harness-contract/index.ts'
import { appendEach, setting } from '../kit/index.ts'

export function copilotSandboxPlan(ctx: InstallContext & { readonly sandbox: SandboxFacts }, userSettings: string): HarnessInstallPlan {
  if (ctx.sandbox.system) return { entries: [], notes: ['Copilot CLI has no root-owned settings file; require sandboxing through your organization policy'] }
  const file = userSettings
  return {
    entries: [
      setting(file, ['sandbox', 'enabled'], true),
      setting(file, ['sandbox', 'allowBypass'], false),
      setting(file, ['sandbox', 'userPolicy', 'network', 'allowLocalNetwork'], false),
      ...appendEach(file, ['sandbox', 'userPolicy', 'filesystem', 'deniedPaths'], [ctx.sandbox.svcHome]),
      ...appendEach(file, ['sandbox', 'userPolicy', 'filesystem', 'readonlyPaths'], ctx.sandbox.protectedFiles),
    ],
    notes: [
      `shell commands run in Copilot's sandbox: ${ctx.sandbox.svcHome} denied, hook and policy files read-only, no local network (the daemon's ports ${ctx.sandbox.ports.join(', ')} included); on Linux it needs bwrap, slirp4netns, iptables and /dev/net/tun`,
    ],
  }
}
