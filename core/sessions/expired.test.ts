/** The advice a call without a live session gets: one true next step per state of the session and the renewer. */
import { describe, expect, it } from 'vitest'
import { sessionAdvice } from './expired.ts'

const now = Date.parse('2026-11-27T12:00:00Z')
const text = (...args: Parameters<typeof sessionAdvice>) => {
  const a = sessionAdvice(...args)
  return `${a.what}; ${a.next}`
}

describe('sessionAdvice', () => {
  it('no session and no renewer: start one or mint one', () => {
    expect(text(undefined, undefined, now)).toBe(
      'the daemon has no session (it restarted, or none was minted yet); no `svc agent` is running: start one (`svc agent --tier <tier>` renews by itself) or type `svc session create --tier <tier>`',
    )
    // A renewer gone quiet for over a minute is not running.
    expect(text(undefined, { tier: 'software', seenAt: now - 61_000 }, now)).toContain('no `svc agent` is running')
  })

  it('a renewer waiting in its terminal for a TOTP code: type it there, not svc session create', () => {
    const t = text(undefined, { tier: 'totp', seenAt: now - 5 * 60_000, waiting: 'code' }, now)
    expect(t).toContain('`svc agent` is waiting in its terminal for the passphrase and a TOTP code (asked at 11:55 UTC): type them there')
    expect(t).not.toContain('svc session create')
    expect(text({ id: 'ses_1', signer: 'totp' }, { tier: 'totp', seenAt: now, waiting: 'code' }, now)).toMatch(/^session ses_1 has expired; `svc agent` is waiting/)
  })

  it('a live silent renewer: retry shortly', () => {
    expect(text(undefined, { tier: 'os-keychain', seenAt: now - 1_000 }, now)).toContain('`svc agent --tier os-keychain` is renewing it: retry in a few seconds')
  })

  it('a TOTP renewer with no terminal: type the mint command', () => {
    expect(text(undefined, { tier: 'totp', seenAt: now }, now)).toContain('cannot ask for a code: type `svc session create --tier totp`')
  })

  it('an expired session with no renewer: the rotate command for its tier', () => {
    expect(text({ id: 'ses_2', signer: 'totp' }, undefined, now)).toBe(
      'session ses_2 has expired; type `svc session rotate --id ses_2 --tier totp` (it asks for the passphrase and a current code)',
    )
    expect(text({ id: 'ses_3', signer: 'os_keychain' }, undefined, now)).toContain('run `svc session rotate --id ses_3 --tier os-keychain`')
  })
})
