import type { SignerKind } from '../types.ts'

/**
 * The deny reason for a call under an expired session: exactly what to type. A TOTP session cannot renew
 * itself (each mint needs a fresh code); the other tiers renew by themselves while `svc agent` runs.
 */
export function expiredSessionReason(id: string, signer: SignerKind): string {
  const tier = signer.replace('_', '-')
  if (signer === 'totp') {
    return `session ${id} (TOTP) has expired and cannot renew itself without a code: type \`svc session rotate --id ${id} --tier totp\` (it asks for the passphrase and a current code)`
  }
  return `session ${id} has expired: run \`svc session rotate --id ${id} --tier ${tier}\`, or keep \`svc agent --tier ${tier}\` running so sessions renew themselves`
}
