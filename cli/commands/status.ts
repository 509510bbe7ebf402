/**
 * `svc status`: where svc stands, in one screen (or `--json`): daemon, mode, session and its renewal, hooks
 * per harness, the shim, policy files, the ledger. Exits 1 when protection is not in force (see the problems
 * it lists) so scripts and shell prompts can check it.
 */
import { Command } from 'commander'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl, svcHome, userHomeOf } from '../paths.ts'
import { collectStatus, type StatusReport } from '../status/collect.ts'
import { versionLine } from '../version.ts'
import { separationLine } from '../status/separation.ts'

const ago = (iso: string, now = Date.now()) => `${Math.max(0, Math.round((now - Date.parse(iso)) / 1000))}s ago`

/** The human-readable report (problems last, each with what to do). */
export function renderStatus(r: StatusReport): string {
  const out = [versionLine()]
  out.push(r.daemon.reachable ? `daemon:   reachable at ${r.url} (version ${r.daemon.version}), mode ${r.mode ?? '?'}` : `daemon:   NOT reachable at ${r.url} (${r.daemon.error})`)
  if (r.separation) out.push(separationLine(r.separation))
  const s = r.session
  if (s) {
    if (s.state === 'none') out.push('session:  none')
    else
      out.push(
        `session:  ${s.id} ${s.state}, signer ${s.signer}${s.banner ? ` (${s.banner})` : ''}, expires ${s.expiresAt}${s.state === 'active' && s.idleExpiresAt ? `, idle expiry ${s.idleExpiresAt}` : ''}`,
      )
    out.push(
      s.renewer?.waiting === 'code'
        ? `renewal:  svc agent (totp) is waiting in its terminal for the passphrase and a code (asked ${ago(s.renewer.seenAt)}): type them there`
        : s.renewer?.live
          ? `renewal:  svc agent (${s.renewer.tier}) listening, last seen ${ago(s.renewer.seenAt)}${s.renewer.tier === 'totp' ? '; TOTP renewals need you to type a code' : '; renews silently'}`
          : `renewal:  no renewer${s.renewer ? ` (svc agent ${s.renewer.tier} last seen ${ago(s.renewer.seenAt)})` : ''}: sessions end after idle expiry or 12 h; run \`svc agent --tier <tier>\``,
    )
  }
  if (r.hooks.length === 0) out.push('hooks:    none installed')
  for (const h of r.hooks)
    out.push(`hooks:    ${h.harness} (${h.scope}) ${h.file}: ${h.entries - h.missing}/${h.entries} entries${h.urls.length ? `, calls ${h.urls.join(', ')}` : ''}; ${hookKind(h.usesShim)}`)
  for (const sb of r.sandbox ?? []) {
    const where = sb.files.length ? ` (${sb.files.join(', ')}: ${sb.settings - sb.missing}/${sb.settings} settings)` : ''
    out.push(`sandbox:  ${sb.harness} ${sb.state === 'off' ? 'off: the agent’s commands run without the second layer; `svc install --sandbox` turns it on' : sb.state}${where}`)
    if (sb.covers?.length) out.push(`          covers: ${sb.covers.join('; ')}`)
    if (sb.open?.length) out.push(`          degraded: only the gate stops a command that tries ${sb.open.join('; ')}`)
    if (sb.state !== 'off')
      out.push(
        sb.allowedDomains?.length
          ? `          network: commands may reach ${sb.allowedDomains.join(', ')} (installs and git work; data can be sent there)`
          : '          network: none (installs and git fetch/push fail inside; `svc install --sandbox --allow-domains detected` offers the project’s registries and remotes)',
      )
  }
  if (r.hooks.some((h) => h.usesShim)) out.push(`shim:     ${r.shim} (${r.home}/bin/svc-hook)`)
  if (r.bundle) {
    const b = r.bundle
    const active = b.active
      ? `revision ${b.active.revision} (sha256 ${b.active.sha256.slice(0, 12)}, signed by ${b.active.keyid}${b.active.expired ? ', EXPIRED' : ''})`
      : 'none active'
    out.push(
      `bundle:   ${active} from ${b.url}${b.last_check ? `; last check ${b.last_check.outcome} ${ago(b.last_check.at)}` : ''}${b.floor.mode ? `; floor mode ${b.floor.mode}` : ''}`,
    )
    if (b.last_refusal) out.push(`          last refused ${ago(b.last_refusal.at)}: ${b.last_refusal.reason}`)
  }
  if (r.policy) {
    out.push(`policy:   ${r.policy.status}, hash ${r.policy.hash.slice(0, 12)}`)
    for (const f of r.policy.files)
      out.push(`          ${f.layer.padEnd(8)} ${f.status.padEnd(6)} ${f.path}${f.gates === undefined ? '' : ` (${f.gates} gate${f.gates === 1 ? '' : 's'})`}${f.error ? `: ${f.error}` : ''}`)
  }
  const off = r.packs.filter((p) => p.state === 'off').map((p) => p.name)
  const chosen = r.packs.filter((p) => p.state === 'on' && p.severity).map((p) => `${p.name} all ${p.severity}`)
  const locked = r.packs.filter((p) => p.state === 'locked').map((p) => `${p.name} (${p.lockedBy}${p.severity ? `, all ${p.severity}` : ''})`)
  out.push(
    `packs:    ${r.packs.length - off.length} of ${r.packs.length} on${off.length ? `; off: ${off.join(', ')}` : ''}${chosen.length ? `; ${chosen.join(', ')}` : ''}${locked.length ? `; locked on: ${locked.join(', ')}` : ''} (svc policy packs)`,
  )
  if (r.ledger) {
    const disk = r.ledger.bytesOnDisk === undefined ? '' : `, ${Math.ceil(r.ledger.bytesOnDisk / 1024)} KiB on disk`
    out.push(
      `ledger:   ${r.ledger.treeSize} leaves${r.ledger.checkpointSize === undefined ? ', no checkpoint (no active session to sign one)' : `, last checkpoint at tree size ${r.ledger.checkpointSize}`}${disk}`,
    )
  }
  out.push(r.problems.length === 0 ? 'protection: ON' : `protection: OFF or degraded (${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}):`)
  for (const p of r.problems) out.push(`  - ${p.what}\n    → ${p.hint}`)
  return out.join('\n')
}

export function makeStatusCommand(io: CliIo): Command {
  return new Command('status')
    .description('show whether protection is in force: daemon, mode, session and renewal, hooks, shim, policy, ledger (exit 1 when not)')
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { url?: string; home?: string; json?: boolean }) => {
      const report = await collectStatus(daemonUrl(io.env, opts.url), svcHome(io.env, opts.home), { userHome: userHomeOf(io.env), vars: io.env, cwd: process.cwd() })
      io.out(opts.json ? JSON.stringify(report, null, 2) : renderStatus(report))
      if (report.problems.length > 0)
        throw new CliError(`protection is not fully in force (${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}; \`svc doctor\` offers fixes)`)
    })
}

/** Which kind of hook runs and what that means when the daemon is down or something else answers on its port. */
function hookKind(usesShim: boolean): string {
  return usesShim
    ? 'command hooks through the shim (fail closed; only answers with the daemon’s MAC count)'
    : 'native HTTP hooks (`--transport http`: the harness runs the tool when the daemon is down or slow, and takes any answer on the port)'
}
