/**
 * Every `svc` subcommand, in help order, loaded lazily: `svc --help` lists the summaries without importing
 * any command, and `svc <command>` imports that command alone (the engine, Fastify and the signers only when
 * a command needs them). The table is built from manifests (table.ts): the CLI's own below, then those of the
 * plugins that bring commands (plugins/commands.ts). A command of the CLI is one file and one line here; a
 * plugin's is declared by the plugin (core/plugin.ts `CommandDeclaration`).
 */
import type { CommandManifest } from '../../core/index.ts'
import { builtinCommands } from '../../plugins/commands.ts'
import { commandTable, type CommandEntry } from './table.ts'

export type { CommandEntry } from './table.ts'

/**
 * The CLI's own commands. Their code stays in cli/ because it leans on what only the CLI has: its daemon client
 * (cli/http.ts), prompts, the state paths, the signers, or several plugins and harnesses at once.
 */
export const cliManifest: CommandManifest = {
  name: 'cli',
  commands: [
    {
      name: 'init',
      summary: 'protect this user in one command: signer, password, daemon and renewer, hooks after the diff, a live deny (`--undo` removes it all)',
      load: async () => ({ default: (await import('./init.ts')).makeInitCommand }),
    },
    {
      name: 'status',
      summary: 'show whether protection is in force: daemon, mode, session and renewal, hooks, shim, policy, ledger (exit 1 when not)',
      load: async () => ({ default: (await import('./status.ts')).makeStatusCommand }),
    },
    {
      name: 'doctor',
      summary: 'check everything status checks and offer fixes (a stale shim, removed hook entries, a changed daemon URL, an invalid harness config)',
      load: async () => ({ default: (await import('./doctor.ts')).makeDoctorCommand }),
    },
    { name: 'daemon', summary: 'run the svc daemon in the foreground (API on 127.0.0.1)', load: async () => ({ default: (await import('./daemon.ts')).makeDaemonCommand }) },
    { name: 'session', summary: 'mint, rotate and list ledger sessions', load: async () => ({ default: (await import('./session.ts')).makeSessionCommand }) },
    {
      name: 'agent',
      summary: 'keep a session minted on the daemon: renew it after restarts, idle expiry and before its lifetime ends',
      load: async () => ({ default: (await import('./agent.ts')).makeAgentCommand }),
    },
    { name: 'signer', summary: 'manage the long-lived host signing key', load: async () => ({ default: (await import('./signer.ts')).makeSignerCommand }) },
    { name: 'ledger', summary: 'inspect and verify the signed Merkle ledger', load: async () => ({ default: (await import('./ledger.ts')).makeLedgerCommand }) },
    { name: 'export', summary: 'ship the ledger to fleet systems (OpenTelemetry collectors)', load: async () => ({ default: (await import('./export.ts')).makeExportCommand }) },
    {
      name: 'fleet',
      summary: 'check ledgers shipped from many machines (svc fleet verify <archive>)',
      load: async () => ({ default: (await import('./fleet.ts')).makeFleetCommand }),
    },
    {
      name: 'allow',
      summary: 'let a denied call through once by the code its deny named, or stop one gate denying in a project for a while (`svc allow rule`)',
      load: async () => ({ default: (await import('./allow.ts')).makeAllowCommand }),
    },
    { name: 'mode', summary: 'show or set the daemon mode', load: async () => ({ default: (await import('./mode.ts')).makeModeCommand }) },
    { name: 'auth', summary: 'operator authentication', load: async () => ({ default: (await import('./auth.ts')).makeAuthCommand }) },
    {
      name: 'install',
      summary: 'install svc hooks into harness configs (shows the diff, asks first)',
      load: async () => ({ default: (await import('./install.ts')).makeInstallCommand }),
    },
    { name: 'uninstall', summary: 'remove every hook entry svc wrote (and nothing else)', load: async () => ({ default: (await import('./install.ts')).makeUninstallCommand }) },
    {
      name: 'service',
      summary: 'run the daemon (and the session renewer) as a per-user service: systemd on Linux, launchd on macOS',
      load: async () => ({ default: (await import('./service.ts')).makeServiceCommand }),
    },
    {
      name: 'undo',
      summary: "restore the workspace's last snapshot (files, git refs and HEAD, a deleted .git), or the one --seq names",
      load: async () => ({ default: (await import('./undo.ts')).makeUndoCommand }),
    },
    { name: 'mcp', summary: 'MCP server pinning', load: async () => ({ default: (await import('./mcp.ts')).makeMcpCommand }) },
    {
      name: 'mcp-proxy',
      summary:
        'the relay a wrapped MCP server entry runs: starts the server, gates its tools/call, resources/read and prompts/get through the daemon, pins its tool list, logs the rest',
      load: async () => ({ default: (await import('./mcp-proxy.ts')).makeMcpProxyCommand }),
    },
    {
      name: 'explain',
      summary: 'show how a tool call is analysed and decided, through the same engine path as the daemon',
      load: async () => ({ default: (await import('./explain.ts')).makeExplainCommand }),
    },
    {
      name: 'scan',
      summary: 'replay the agents’ own transcripts through the current policy: what svc would have denied, and why (no daemon, writes nothing)',
      load: async () => ({ default: (await import('./scan.ts')).makeScanCommand }),
    },
    {
      name: 'false-positive',
      summary: 'recover from a false positive: write a case bundle and a replacement draft, validate and apply it, revert it',
      load: async () => ({ default: (await import('./false-positive.ts')).makeFalsePositiveCommand }),
    },
    {
      name: 'log',
      summary: 'what the agent did: decisions newest first, filtered, with the redacted command, path or URL',
      load: async () => ({ default: (await import('./log.ts')).makeLogCommand }),
    },
    {
      name: 'tail',
      summary: 'follow new decisions, one plain line (or JSON object) each, for pipes and scripts',
      load: async () => ({ default: (await import('./tail.ts')).makeTailCommand }),
    },
    {
      name: 'top',
      summary: 'terminal dashboard: live decisions, gates, sessions, MCP pins and the ledger, with keyboard navigation',
      load: async () => ({ default: (await import('./top.ts')).makeTopCommand }),
    },
    {
      name: 'hud',
      summary: "print one status line (mode, signer tier, allow/deny counts, pending pin changes) for Claude Code's statusLine",
      load: async () => ({ default: (await import('./hud.ts')).makeHudCommand }),
    },
    {
      name: 'policy',
      summary: 'tools for rule authors: run fixtures, lint policy files, build and sign policy bundles',
      load: async () => ({ default: (await import('./policy.ts')).makePolicyCommand }),
    },
  ],
}

export const commands: readonly CommandEntry[] = commandTable([cliManifest, ...builtinCommands])

/** The commands an argument list invokes (`svc <command> …`, `svc help <command>`): the only ones worth loading. */
export function requestedCommands(argv: readonly string[]): Set<string> {
  const words = argv.filter((a) => !a.startsWith('-'))
  return new Set(words[0] === 'help' ? words.slice(0, 2) : words.slice(0, 1))
}
