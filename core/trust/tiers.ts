/**
 * Signer tiers: the CLI's `--tier` spelling (kebab-case) and the ledger's signer kind (snake_case), the
 * banner each weak tier must show (exact spec text, never suppressible).
 */
import type { SignerKind } from '../types.ts'

/** The signer tiers as the CLI's `--tier` spells them, weakest first. */
export const TIERS = ['unattested', 'software', 'totp', 'os-keychain', 'hardware-key'] as const
export type Tier = (typeof TIERS)[number]

const KIND_OF: Record<Tier, SignerKind> = {
  unattested: 'unattested',
  software: 'software',
  totp: 'totp',
  'os-keychain': 'os_keychain',
  'hardware-key': 'hardware_key',
}

/** Parses a `--tier` value; throws naming the accepted values. */
export function parseTier(value: string): Tier {
  if ((TIERS as readonly string[]).includes(value)) return value as Tier
  throw new RangeError(`unknown tier "${value}" (expected one of: ${TIERS.join(', ')})`)
}

/** The ledger's signer kind for a CLI tier (`os-keychain` → `os_keychain`). */
export function signerKindOf(tier: Tier): SignerKind {
  return KIND_OF[tier]
}

/** A banner line: its colour and exact text. */
export interface Banner {
  readonly color: 'red' | 'yellow'
  readonly text: string
}

/** The spec's banner for a signer kind, or undefined for the strong kinds. */
export function bannerFor(kind: SignerKind): Banner | undefined {
  switch (kind) {
    case 'unattested':
      return { color: 'red', text: 'UNATTESTED — LEDGER NOT SIGNED' }
    case 'software':
      return { color: 'red', text: 'DEV — SOFTWARE SIGNER' }
    case 'totp':
      return { color: 'yellow', text: 'TOTP-BACKED — MEDIUM ASSURANCE' }
    default:
      return undefined
  }
}
