/**
 * Picks the long-lived host key for a tier: unattested has none, software is lazily created on disk,
 * totp is unsealed by passphrase + code, os-keychain comes from the macOS keychain, and hardware-key is
 * recognised but not yet implemented.
 */
import type { SigningKey } from '../../core/index.ts'
import { signerKindOf, type Tier } from '../../core/types.ts'
import type { SignerKind } from '../../core/types.ts'
import { loadOsKeychainKey } from './os-keychain.ts'
import { SignerError } from './signer-error.ts'
import { loadSoftwareKey } from './software-key.ts'
import { unlockTotp } from './totp-signer.ts'

export interface HostSigner {
  readonly kind: SignerKind
  /** Absent for unattested. */
  readonly key?: SigningKey
}

export interface UnlockOptions {
  readonly home: string
  readonly env: NodeJS.ProcessEnv
  readonly code?: string
  readonly passphrase?: string
  readonly now?: number
}

/** Unlocks the host key of `tier`; throws SignerError with a clear message when it cannot. */
export function unlockHostKey(tier: Tier, options: UnlockOptions): HostSigner {
  const kind = signerKindOf(tier)
  switch (tier) {
    case 'unattested':
      return { kind }
    case 'software':
      return { kind, key: loadSoftwareKey(options.home, options.env) }
    case 'totp':
      return { kind, key: unlockTotp(options.home, options.code, options.passphrase, options.now) }
    case 'os-keychain':
      return { kind, key: loadOsKeychainKey(options.home, options.env, options.now) }
    case 'hardware-key':
      throw new SignerError('not_implemented', '--tier hardware-key is not yet implemented (PIV/FIDO2 support is planned)')
  }
}
