/**
 * `svc init`: protected in one command. In order, changing nothing until the step that needs it: detect the OS,
 * the harnesses and the signer tiers; set the operator password; enroll the signer; run the daemon and the
 * renewer (a per-user service, or detached processes where no service manager runs, with what to run at login);
 * show the hook diff and install; end with a live deny through the installed shim. Each step first checks
 * whether it is already done, so a second run changes nothing and says so. `$SVC_HOME/init.json` records what
 * was done for `svc init --undo` (cli/init/undo.ts).
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseTier } from '../../core/types.ts'
import { setPassword } from '../../daemon/index.ts'
import { askNewSecret, banner, CliError, stderrColour, type CliIo } from '../io.ts'
import { PROJECT_ROOT, svcHome, VERSION } from '../paths.ts'
import { KEYSTORE_LABELS } from '../signer/keystores.ts'
import { totpSecrets } from '../signer/mint-flow.ts'
import { enrollOsKeychain, loadOsKeychainKey, readKeychainMeta } from '../signer/os-keychain.ts'
import { SignerError } from '../signer/signer-error.ts'
import { loadSoftwareKey, softwareKeyPath } from '../signer/software-key.ts'
import { terminalQr } from '../signer/qr-terminal.ts'
import { enrollTotp, totpFilePath } from '../signer/totp-signer.ts'
import { installHooks, liveDenyDemo, loadPlanner, planHooks } from './hooks.ts'
import { hostFacts, pickTier, svcCommand } from './host.ts'
import { alive, currentSession, logDir, renewerRunning, startDetached, stopPid, waitUntil } from './processes.ts'
import { fileHash, readRecord, writeRecord, type InitRecord } from './record.ts'
import { callDaemon } from '../http.ts'

export interface InitOptions {
  readonly tier?: string
  readonly keystore?: string
  readonly passwordStdin?: boolean
  readonly yes?: boolean
  readonly port: number
  readonly home?: string
  readonly harness?: string[]
  readonly unlockLifetime?: string
}

type Tier = 'os-keychain' | 'totp' | 'software'

const healthy = (url: string) =>
  callDaemon<{ status: string }>(url, '/v1/health', { timeoutMs: 10_000 }).then(
    () => true,
    () => undefined,
  )

export async function runInit(io: CliIo, opts: InitOptions): Promise<void> {
  const home = svcHome(io.env, opts.home)
  const url = `http://127.0.0.1:${opts.port}`
  const svcBin = realpathSync(join(PROJECT_ROOT, 'cli', 'svc.sh'))
  const svc = svcCommand(io.env, svcBin)
  const prior = readRecord(home)
  const changes: string[] = []

  // 1. What is here. Nothing changes before the harnesses and the tier are known.
  const facts = hostFacts(io.env)
  io.out(`svc init ${VERSION}: ${facts.os}; services: ${facts.managerNote}`)
  await loadPlanner()
  const plan = planHooks(io, home, url, opts.harness)
  io.out(`harnesses: ${plan.harnesses.join(', ')}${plan.skipped.length ? ` (not found: ${plan.skipped.join(', ')})` : ''}`)
  for (const k of facts.keystores) io.out(`  keystore ${k.id}: ${k.unavailable ? `not usable: ${k.unavailable}` : 'usable'}`)
  const picked = pickTier(facts, opts.tier ?? prior?.tier)
  const { tier } = picked
  const why = !opts.tier && prior?.tier ? 'as the first svc init chose; --tier changes it' : picked.why
  parseTier(tier)
  io.out(`signer: ${tier} (${why})`)
  const childEnv: NodeJS.ProcessEnv = { ...io.env, SVC_HOME: home, ...(tier === 'software' ? { SVC_ALLOW_SOFTWARE_SIGNER: '1' } : {}) }
  if (tier === 'software') io.err(banner('software', stderrColour(io.env)))

  let record: InitRecord = prior ?? {
    v: 1,
    at: new Date().toISOString(),
    tier,
    port: opts.port,
    passwordSet: false,
    runner: { kind: 'detached' },
    harnesses: [],
    configs: [],
  }
  const save = (next: Partial<InitRecord>) => {
    record = { ...record, ...next, tier }
    writeRecord(home, record)
  }

  // 2. The operator password (false-positive apply, pin accept, mode, the dashboard need it).
  if (existsSync(join(home, 'auth.json'))) io.out('operator password: already set (`svc auth set-password` changes it)')
  else {
    if (!io.interactive && !opts.passwordStdin)
      throw new CliError('svc init sets the operator password: run it in a terminal (it asks), or pipe it with --password-stdin (the first line of stdin); nothing was changed', 2)
    const password = io.interactive ? await askNewSecret(io, 'new operator password (svc auth, the dashboard)') : await io.ask('operator password: ', { hidden: true })
    if (!password) throw new CliError('no operator password given; nothing was changed', 2)
    try {
      setPassword(home, password)
    } catch (err) {
      throw new CliError(`${(err as Error).message}; nothing was changed`, 2)
    }
    save({ passwordSet: true })
    changes.push('set the operator password')
    io.out(`operator password: set (scrypt hash in ${join(home, 'auth.json')})`)
  }

  // 3. The signer.
  const enrolled = await enrollSigner(io, home, tier, childEnv, opts.keystore)
  if (enrolled) {
    save({ enrolled: record.enrolled ?? tier })
    changes.push(`enrolled the ${tier} signer`)
  }

  // 4. The daemon and the renewer.
  // A daemon init started that is alive but slow to answer is waited for, never doubled: two daemons on one home
  // would both write its ledger.
  const ownDaemon = record.runner.kind === 'detached' && alive(record.runner.daemonPid)
  if ((await healthy(url)) || (ownDaemon && (await waitUntil(() => healthy(url), 30_000)))) io.out(`daemon: already running at ${url}`)
  else if (ownDaemon) throw new CliError(`the daemon svc init started does not answer at ${url}: see ${join(logDir(home), 'daemon.log')}`)
  else if (facts.manager !== 'none') {
    const { main } = await import('../main.ts')
    const args = ['service', 'install', '--port', String(opts.port), '--home', home, ...(tier === 'totp' ? [] : ['--agent', tier])]
    if ((await main(args, { ...io, env: childEnv })) !== 0) throw new CliError(`\`svc ${args.join(' ')}\` failed (above)`)
    save({ runner: { kind: 'service', manager: facts.manager } })
    changes.push(`installed the ${facts.manager} service`)
    if (!(await waitUntil(() => healthy(url), 30_000))) throw new CliError(`the daemon service did not answer at ${url} within 30 s: see \`svc service status\``)
  } else {
    const pid = startDetached(svcBin, 'daemon', ['daemon', '--port', String(opts.port), '--home', home], home, childEnv)
    save({ runner: { kind: 'detached', daemonPid: pid, ...(record.runner.kind === 'detached' && record.runner.agentPid ? { agentPid: record.runner.agentPid } : {}) } })
    changes.push(`started the daemon (pid ${pid})`)
    if (!(await waitUntil(() => healthy(url), 30_000))) throw new CliError(`the daemon did not answer at ${url} within 30 s: see ${join(logDir(home), 'daemon.log')}`)
    io.out(`daemon: started at ${url} (pid ${pid}, log ${join(logDir(home), 'daemon.log')})`)
  }
  const agentPid = record.runner.kind === 'detached' ? record.runner.agentPid : undefined
  const cur = await currentSession(url)
  const servicedAgent = facts.manager !== 'none' && tier !== 'totp'
  if (renewerRunning(cur) && cur!.renewer!.tier === tier && (alive(agentPid) || servicedAgent)) io.out(`renewer: already running (svc agent --tier ${cur!.renewer!.tier})`)
  else if (servicedAgent && record.runner.kind === 'service') io.out('renewer: started by the service')
  else {
    // Another tier's renewer that init started goes first: two renewers would race.
    if (await stopPid(agentPid)) io.out(`renewer: stopped the ${cur?.renewer?.tier ?? 'earlier'} renewer (pid ${agentPid})`)
    // A detached TOTP renewer is unlocked once, here: it holds the key for its unlock lifetime.
    const secrets = tier === 'totp' ? await totpSecrets(io, {}) : undefined
    const args = [
      'agent',
      '--tier',
      tier,
      '--url',
      url,
      '--home',
      home,
      ...(secrets ? ['--unlock-stdin'] : []),
      ...(opts.unlockLifetime ? ['--unlock-lifetime', opts.unlockLifetime] : []),
    ]
    const pid = startDetached(svcBin, 'agent', args, home, childEnv, secrets ? `${secrets.passphrase}\n${secrets.code}\n` : undefined)
    save({ runner: { kind: 'detached', agentPid: pid, ...(record.runner.kind === 'detached' && record.runner.daemonPid ? { daemonPid: record.runner.daemonPid } : {}) } })
    changes.push(`started the renewer (pid ${pid})`)
    io.out(`renewer: started svc agent --tier ${tier} (pid ${pid}, log ${join(logDir(home), 'agent.log')})`)
  }
  const active = await waitUntil(async () => {
    const c = await currentSession(url)
    return c?.state === 'active' ? c : undefined
  }, 30_000)
  if (!active?.session) throw new CliError(`no session became active within 30 s: see ${join(logDir(home), 'agent.log')} and \`svc status\``)
  io.out(`session: ${active.session.session_id} (signer ${active.session.signer}, expires ${active.session.expires_at})`)

  // 5. The hooks, after the diff.
  if (plan.plan.changes.length === 0 && plan.shimCurrent) io.out(`hooks: already installed for ${plan.harnesses.join(', ')}`)
  else {
    const known = new Set(record.configs.map((c) => c.path))
    // The planned files, and the config files beside them that a harness's trust step edits (Codex's config.toml).
    const paths = new Set(plan.plan.changes.flatMap((c) => [c.path, ...configsBeside(c.path)]))
    const before = [...paths].filter((p) => !known.has(p)).map((p) => ({ path: p, sha256: fileHash(p) }))
    save({ configs: [...record.configs, ...before], harnesses: [...new Set([...record.harnesses, ...plan.harnesses])] })
    await installHooks(io, plan, { home, url, yes: !!opts.yes })
    changes.push(`installed hooks for ${plan.harnesses.join(', ')}`)
  }

  // 6. Proof, on a run that changed something: a real hook call through the installed shim.
  if (changes.length > 0) await liveDenyDemo(io, home, url, childEnv)
  if (facts.manager === 'none' || tier === 'totp') loginAdvice(io, svc, tier, facts.manager === 'none')
  if (readKeychainMeta(home)?.keystore === 'kernel-keyring' && tier === 'os-keychain')
    io.out('note: the kernel keyring keeps the key until reboot (or the end of your last session): `svc init` after that enrolls a new one by itself')
  io.out(
    changes.length === 0
      ? 'nothing changed: svc init had already done all of this (`svc status` shows it; `svc init --undo` removes it)'
      : `done: ${changes.join('; ')}. \`svc status\` shows it; \`svc init --undo\` removes it.`,
  )
}

/** The harness config files (JSON, TOML, YAML) in the directory of `path`: what an install's side steps may touch. */
function configsBeside(path: string): string[] {
  try {
    const dir = dirname(path)
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && /\.(json|jsonc|toml|ya?ml)$/.test(e.name))
      .map((e) => join(dir, e.name))
  } catch {
    return []
  }
}

/** Enrolls the tier's host key unless one is already usable; true when it enrolled one. */
async function enrollSigner(io: CliIo, home: string, tier: Tier, env: NodeJS.ProcessEnv, keystore?: string): Promise<boolean> {
  try {
    if (tier === 'os-keychain') {
      const meta = readKeychainMeta(home)
      if (meta) {
        try {
          loadOsKeychainKey(home, env)
          io.out(`signer: already enrolled in the ${KEYSTORE_LABELS[meta.keystore ?? 'macos-keychain']}`)
          return false
        } catch (err) {
          io.out(`signer: the enrolled key cannot be used (${(err as Error).message}); enrolling a new one`)
        }
      }
      const done = enrollOsKeychain(home, env, keystore ? { keystore } : {})
      io.out(`signer: enrolled a new key in the ${KEYSTORE_LABELS[done.keystore]}`)
      return true
    }
    if (tier === 'software') {
      const existed = existsSync(softwareKeyPath(home))
      loadSoftwareKey(home, env)
      io.out(existed ? 'signer: software key already present' : `signer: software key created (${softwareKeyPath(home)}, dev/CI only)`)
      return !existed
    }
    if (existsSync(totpFilePath(home))) {
      io.out('signer: TOTP key already enrolled')
      return false
    }
    io.err(banner('totp', stderrColour(io.env)))
    const passphrase = await askNewSecret(io, 'passphrase sealing the TOTP key (at least 8 characters)')
    const { uri } = enrollTotp(home, passphrase ?? '')
    io.out(`signer: TOTP key enrolled. Add it to your authenticator app (shown once):\n${terminalQr(uri)}\n${uri}`)
    io.out('the renewer asks for that passphrase and a current code once; then it renews by itself for 12 h (--unlock-lifetime)')
    return true
  } catch (err) {
    if (err instanceof SignerError) throw new CliError(err.message)
    throw err
  }
}

/** Where nothing starts svc at login (or TOTP must be unlocked by a person): exactly what to run. */
function loginAdvice(io: CliIo, svc: string, tier: Tier, noManager: boolean): void {
  if (noManager) {
    io.out('at each login (nothing here starts svc for you), run:')
    io.out(`  ${svc} init${tier === 'totp' ? '' : ' --yes'}`)
    io.out('  (it starts what is not running and changes nothing else; add it to ~/.profile to make it automatic)')
  } else io.out(`at each login, unlock the TOTP renewer once: \`${svc} init\` (or \`${svc} agent --tier totp\` in a terminal)`)
}
