/**
 * Claude Code's own sandbox (`sandbox` in settings.json; @anthropic-ai/sandbox-runtime on bubblewrap/Seatbelt)
 * set up as svc's second layer. Key names are those of the published schema this folder validates against
 * (SchemaStore claude-code-settings, `sandbox` and `permissions`) and of code.claude.com/docs/en/sandboxing and
 * /settings: `enabled`; `failIfUnavailable` ("make sandbox startup a hard failure", instead of running unsandboxed
 * with a warning); `allowUnsandboxedCommands: false` ("the dangerouslyDisableSandbox parameter is completely
 * ignored"); `filesystem.denyRead` / `denyWrite`; `network.deniedDomains`, `strictAllowlist` ("deny non-allowlisted
 * hosts without prompting"), `allowLocalBinding`, `allowAllUnixSockets`; `enableWeakerNestedSandbox`;
 * `permissions.disableBypassPermissionsMode: "disable"`. Booleans in managed settings win over every other
 * layer and arrays merge (sandboxing, "Keep developers from widening the policy"), so `--system` writes
 * `/etc/claude-code/managed-settings.json` (code.claude.com/docs/en/settings, "Managed settings").
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import type { HarnessInstallPlan, InstallContext, InstallEntry, SandboxFacts } from '../../harness-contract/index.ts'
import { appendEach, claudePathSpellings, LOOPBACK_HOSTS, setting } from '../kit/index.ts'

// Permission rules name a directory's contents with `/**` (code.claude.com/docs/en/permissions, "Read and Edit").
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Where the sandbox block goes: the user's settings, or the managed settings with `--system`. */
export function claudeSandboxFile(ctx: InstallContext & { readonly sandbox: SandboxFacts }, userSettings: string): string {
  return ctx.sandbox.system ? join(ctx.sandbox.systemRoot, 'claude-code', 'managed-settings.json') : userSettings
}

export function claudeSandboxPlan(ctx: InstallContext & { readonly sandbox: SandboxFacts }, userSettings: string, schema: string): HarnessInstallPlan {
  const file = claudeSandboxFile(ctx, userSettings)
  const home = ctx.home
  const svcHome = claudePathSpellings(ctx.sandbox.svcHome, home)
  const files = ctx.sandbox.protectedFiles.flatMap((f) => claudePathSpellings(f, home))
  // The protected set the gates use (plugins/protected-set/set.ts): secrets unreadable, start-up files,
  // svc's project layer and `.envrc` unwritable, public keys and .env templates readable again.
  const secrets = ctx.sandbox.secrets ?? { denyRead: [], allowRead: [], denyWrite: [] }
  const spell = (paths: readonly string[]) => paths.flatMap((p) => claudePathSpellings(p, home))
  const readRules = secrets.denyRead.flatMap((p) => {
    const rule = claudePathSpellings(p, home)[0]
    return /[*?[]/.test(p) ? [`Read(${rule})`] : [`Read(${rule})`, `Read(${rule}/**)`]
  })
  const entries: InstallEntry[] = [
    setting(file, ['sandbox', 'enabled'], true, schema),
    setting(file, ['sandbox', 'failIfUnavailable'], true, schema),
    setting(file, ['sandbox', 'allowUnsandboxedCommands'], false, schema),
    setting(file, ['sandbox', 'enableWeakerNestedSandbox'], false, schema),
    setting(file, ['sandbox', 'network', 'strictAllowlist'], true, schema),
    setting(file, ['sandbox', 'network', 'allowLocalBinding'], false, schema),
    setting(file, ['sandbox', 'network', 'allowAllUnixSockets'], false, schema),
    setting(file, ['permissions', 'disableBypassPermissionsMode'], 'disable', schema),
    ...appendEach(file, ['sandbox', 'filesystem', 'denyRead'], [...svcHome, ...spell(secrets.denyRead)], schema),
    ...appendEach(file, ['sandbox', 'filesystem', 'allowRead'], spell(secrets.allowRead), schema),
    ...appendEach(file, ['sandbox', 'filesystem', 'denyWrite'], [...svcHome, ...files, ...spell(secrets.denyWrite)], schema),
    ...appendEach(file, ['sandbox', 'network', 'allowedDomains'], ctx.sandbox.allowedDomains ?? [], schema),
    // Secret variables unset for commands (Claude Code 2.1.187+, `sandbox.credentials.envVars`).
    ...appendEach(
      file,
      ['sandbox', 'credentials', 'envVars'],
      (secrets.envVars ?? []).map((name) => ({ name, mode: 'deny' })),
      schema,
    ),
    ...appendEach(file, ['sandbox', 'network', 'deniedDomains'], LOOPBACK_HOSTS, schema),
    // Claude's own file tools run outside the sandbox; its deny rules refuse them even with the hook gone.
    ...appendEach(
      file,
      ['permissions', 'deny'],
      [
        `Read(${svcHome[0]}/**)`,
        `Edit(${svcHome[0]}/**)`,
        ...ctx.sandbox.protectedFiles.map((f) => `Edit(${claudePathSpellings(f, home)[0]}${isDirectory(f) ? '/**' : ''})`),
        ...readRules,
        'WebFetch(domain:localhost)',
        'WebFetch(domain:127.0.0.1)',
      ],
      schema,
    ),
  ]
  const notes = [
    `sandboxed Bash cannot read or write ${ctx.sandbox.svcHome}, read the ${secrets.denyRead.length} secret paths the gates protect, write the harness configs, start-up files or svc's project layer, or reach loopback (ports ${ctx.sandbox.ports.join(', ')}); Linux needs bubblewrap, socat and ripgrep (Debian: apt-get install bubblewrap socat ripgrep), or Claude Code refuses to start (failIfUnavailable)`,
    ctx.sandbox.allowedDomains?.length
      ? `sandboxed commands may reach ${ctx.sandbox.allowedDomains.join(', ')} (and send data there); \`svc status\` shows them`
      : 'sandboxed commands reach no host: dependency installs and git fetch/push fail inside the sandbox until hosts are allowed (`svc install --sandbox --allow-domains detected`)',
    ctx.sandbox.system ? '' : 'user settings can be overridden by managed settings; `sudo svc install --sandbox --system` writes them where root is available',
  ].filter(Boolean)
  return { entries, notes }
}
