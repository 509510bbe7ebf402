/**
 * Gemini CLI's tool sandbox as svc's second layer. From the settings schema this folder validates against
 * (google-gemini/gemini-cli schemas/settings.schema.json): `security.toolSandboxing` ("Isolates individual
 * tools instead of the entire CLI process") and `security.disableYoloMode`. On Linux the tools run in bwrap with
 * `--unshare-all` (no network unless `networkAccess`) and `/` bound read-only, the workspace writable
 * (packages/core/src/sandbox/linux/bwrapArgsBuilder.ts). The whole-process sandbox (`tools.sandbox`,
 * `GEMINI_SANDBOX`) is never turned on: it would put svc's hook inside the box with the agent and mount
 * `~/.gemini` read-write (packages/cli/src/utils/sandbox.ts). `--system` writes `/etc/gemini-cli/settings.json`,
 * which overrides user and workspace settings (docs/cli/enterprise.md).
 */
import { join } from 'node:path'
import type { HarnessInstallPlan, InstallContext, SandboxFacts } from '../../harness-contract/index.ts'
import { asRecord, setting } from '../kit/index.ts'

export function geminiSandboxPlan(ctx: InstallContext & { readonly sandbox: SandboxFacts }, userSettings: string, schema: string): HarnessInstallPlan {
  const file = ctx.sandbox.system ? join(ctx.sandbox.systemRoot, 'gemini-cli', 'settings.json') : userSettings
  const whole = asRecord(ctx.readConfig(file))?.tools
  const notes = [
    `tools run sandboxed: no network (the daemon's ports ${ctx.sandbox.ports.join(', ')} included), writes only in the workspace; Gemini's tool sandbox does not hide ${ctx.sandbox.svcHome} from reads`,
    asRecord(whole)?.sandbox
      ? `WARNING: tools.sandbox is set in ${file}: the whole-process sandbox runs svc's hook inside it, where the daemon is unreachable (every call is denied); remove it`
      : '',
  ].filter(Boolean)
  return {
    entries: [setting(file, ['security', 'toolSandboxing'], true, schema), setting(file, ['security', 'disableYoloMode'], true, schema)],
    notes,
  }
}
