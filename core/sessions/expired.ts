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

/** What the renewer (`svc agent`) told the daemon last: its tier, when, and whether it waits for a person. */
export type RenewerState = Readonly<{ tier: string; seenAt: number; waiting?: 'code' }>

/** A call without an active session: what is wrong and the true next step, from the session and the renewer's state. */
export function sessionAdvice(session: Readonly<{ id: string; signer: SignerKind }> | undefined, renewer: RenewerState | undefined, now: number): { what: string; next: string } {
  const what = session ? `session ${session.id} has expired` : 'the daemon has no session (it restarted, or none was minted yet)'
  const live = renewer !== undefined && now - renewer.seenAt < 60_000
  if (renewer?.waiting === 'code')
    return {
      what,
      next: `\`svc agent\` is waiting in its terminal for the passphrase and a TOTP code (asked at ${new Date(renewer.seenAt).toISOString().slice(11, 16)} UTC): type them there`,
    }
  if (live && renewer.tier !== 'totp')
    return { what, next: `\`svc agent --tier ${renewer.tier}\` is renewing it: retry in a few seconds (\`svc status\` says why if it keeps failing)` }
  if (session) return { what, next: expiredSessionReason(session.id, session.signer).replace(/^.*?: /, '') }
  if (live) return { what, next: 'the `svc agent --tier totp` running without a terminal cannot ask for a code: type `svc session create --tier totp`' }
  return { what, next: 'no `svc agent` is running: start one (`svc agent --tier <tier>` renews by itself) or type `svc session create --tier <tier>`' }
}
