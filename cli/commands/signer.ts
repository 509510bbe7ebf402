/** `svc signer enroll`: one-time enrollment of a long-lived host key (TOTP, OS keychain, or the dev software key). */
import { Command, Option } from 'commander'
import { TIERS } from '../../core/types.ts'
import { trustFilePath } from '../../core/index.ts'
import { trustLine } from '../daemon/trust-env.ts'
import { durationOption } from '../duration-option.ts'
import { askNewSecret, banner, CliError, stderrColour, type CliIo } from '../io.ts'
import { svcHome } from '../paths.ts'
import { KEYSTORE_LABELS, KEYSTORES } from '../signer/keystores.ts'
import { enrollOsKeychain } from '../signer/os-keychain.ts'
import { SignerError } from '../signer/signer-error.ts'
import { loadSoftwareKey } from '../signer/software-key.ts'
import { terminalQr } from '../signer/qr-terminal.ts'
import { enrollTotp } from '../signer/totp-signer.ts'

interface EnrollOpts {
  tier: string
  ttl?: string
  passphrase?: string
  home?: string
  keystore?: string
}

async function enroll(io: CliIo, opts: EnrollOpts): Promise<void> {
  const ttlMs = durationOption('--ttl', opts.ttl)
  if (ttlMs === 0) throw new CliError('--ttl must be longer than 0s (omit it for no expiry)', 2)
  const home = svcHome(io.env, opts.home)
  switch (opts.tier) {
    case 'totp': {
      io.err(banner('totp', stderrColour(io.env)))
      const passphrase = opts.passphrase ?? (await askNewSecret(io, 'passphrase sealing the TOTP key'))
      const { uri, publicKey } = enrollTotp(home, passphrase ?? '', { ttlMs })
      io.out(`TOTP signer enrolled. Scan the code or add the URI to your authenticator app (shown once):\n${terminalQr(uri)}\n${uri}`)
      io.out(`host public key ${publicKey.toString('base64')} is now trusted for signer totp in ${trustFilePath(home)}`)
      return
    }
    case 'os-keychain': {
      const { publicKey, expiresAt, keystore } = enrollOsKeychain(home, io.env, { ttlMs, ...(opts.keystore ? { keystore: opts.keystore } : {}) })
      io.out(`OS-keychain signer enrolled in the ${KEYSTORE_LABELS[keystore]}${expiresAt ? ` (expires ${expiresAt})` : ' (no expiry)'}.`)
      if (keystore === 'kernel-keyring') io.out('the key lives in kernel memory only: after a reboot (or the end of your last session) enroll again, or re-run `svc init`')
      io.out(`host public key ${publicKey.toString('base64')} is now trusted for signer os_keychain in ${trustFilePath(home)}`)
      return
    }
    case 'software': {
      io.err(banner('software', stderrColour(io.env)))
      const key = loadSoftwareKey(home, io.env)
      io.out(`software signer ready; host public key ${key.publicKey.toString('base64')} (trusted for signer software)`)
      return
    }
    case 'hardware-key':
      throw new CliError('--tier hardware-key is not yet implemented (PIV/FIDO2 support is planned)')
    default:
      throw new CliError('--tier unattested has no key to enroll')
  }
}

export function makeSignerCommand(io: CliIo): Command {
  const signer = new Command('signer').description('manage the long-lived host signing key')
  const cmd = new Command('enroll')
    .description('enroll a host key: totp (sealed under --passphrase), os-keychain (macOS keychain, Secret Service, kernel keyring), or software (dev/CI)')
    .addOption(new Option('--tier <tier>', 'signer tier').choices(TIERS).makeOptionMandatory())
    .option('--ttl <duration>', 'enrollment expiry, e.g. 30m, 4h, 7d, 1h30m (default: none)')
    .option('--passphrase <PASSPHRASE>', 'passphrase sealing the TOTP key (tier totp, at least 8 characters; prompted for, or read from stdin, when omitted)')
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .addOption(new Option('--keystore <name>', 'os-keychain: where the key is kept (default: the best this host has)').choices(KEYSTORES))
  cmd.action(async (opts: EnrollOpts) => {
    try {
      await enroll(io, opts)
    } catch (err) {
      if (err instanceof SignerError) throw new CliError(err.message)
      throw err
    }
  })
  const exportTrust = new Command('export-trust')
    .description(
      'print this host’s active public keys as the SVC_TRUSTED_HOST_KEYS value a container daemon needs (docker run -e SVC_TRUSTED_HOST_KEYS="$(svc signer export-trust)")',
    )
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .action((opts: { home?: string }) => {
      const line = trustLine(svcHome(io.env, opts.home))
      if (!line) throw new CliError('this host has no enrolled key yet: run `svc signer enroll --tier <tier>` first')
      io.out(line)
    })
  return signer.addCommand(cmd).addCommand(exportTrust)
}
