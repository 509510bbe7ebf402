/**
 * `svc init --undo` (also `svc uninstall --all`): removes what `$SVC_HOME/init.json` says init did, in reverse:
 * the hooks (then each harness config is compared with the hash of its bytes before init), the service files or
 * the detached processes, the signer it enrolled, the password it set, and the record. The ledger and the
 * trusted host keys stay: they are the evidence of what happened, and their removal is one `rm -rf` the user
 * types knowingly.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { CliError, type CliIo } from '../io.ts'
import { svcHome } from '../paths.ts'
import { removeOsKeychain } from '../signer/os-keychain.ts'
import { softwareKeyPath } from '../signer/software-key.ts'
import { totpFilePath } from '../signer/totp-signer.ts'
import { currentSession, stopPid } from './processes.ts'
import { fileHash, readRecord, removeRecord } from './record.ts'

export async function undoInit(io: CliIo, opts: { home?: string }): Promise<void> {
  const home = svcHome(io.env, opts.home)
  const record = readRecord(home)
  if (!record) {
    io.out(`svc init has not run for ${home} (no init.json there): nothing to undo`)
    return
  }
  const { main } = await import('../main.ts')
  const url = `http://127.0.0.1:${record.port}`
  if (record.harnesses.length > 0) {
    const args = ['uninstall', '--yes', '--home', home, '--harness', ...record.harnesses]
    if ((await main(args, io)) !== 0) throw new CliError(`\`svc ${args.join(' ')}\` failed (above); init.json is kept so --undo can be run again`)
  }
  for (const c of record.configs) {
    const now = fileHash(c.path)
    if (now === c.sha256) io.out(`  ${c.path}: ${c.sha256 === null ? 'absent again, as before svc init' : 'byte-exact as before svc init'}`)
    else io.err(`warning: ${c.path} differs from its bytes before svc init (edited since?): check it by hand`)
  }
  if (record.runner.kind === 'service') {
    if ((await main(['service', 'uninstall', '--home', home], io)) !== 0) throw new CliError('`svc service uninstall` failed (above)')
  } else {
    for (const [name, pid] of [
      ['renewer', record.runner.agentPid],
      ['daemon', record.runner.daemonPid],
    ] as const)
      io.out((await stopPid(pid)) ? `stopped the ${name} (pid ${pid})` : `the ${name} (pid ${pid ?? '-'}) was not running`)
  }
  if (await currentSession(url)) io.err(`warning: a daemon still answers at ${url}: svc init did not start it (stop it where it was started)`)
  if (record.enrolled === 'os-keychain') {
    removeOsKeychain(home, io.env)
    io.out('removed the os-keychain signer key from its keystore')
  } else if (record.enrolled === 'totp' || record.enrolled === 'software') {
    rmSync(record.enrolled === 'totp' ? totpFilePath(home) : softwareKeyPath(home), { force: true })
    io.out(`removed the ${record.enrolled} signer key`)
  }
  if (record.passwordSet) {
    rmSync(join(home, 'auth.json'), { force: true })
    io.out('removed the operator password svc init set')
  }
  removeRecord(home)
  io.out(`svc init is undone. Kept: ${home} (the ledger and trusted host keys are evidence; \`rm -rf ${home}\` deletes them)`)
}
