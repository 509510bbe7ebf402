/**
 * Binds a gate's `disabled: true` to the daemon. Only a false-positive replacement written by the
 * daemon carries a valid seal (HMAC-SHA256 under a key in $SVC_HOME that tool calls cannot read);
 * a hand-edited `disabled: true` is reported and ignored.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import canonicalize from 'canonicalize'
import type { DisabledBy } from './compiled.ts'

/** What a seal covers: the disable metadata, the gate id and the policy file it is written in (so it cannot be copied elsewhere). */
export type DisableFacts = Omit<DisabledBy, 'seal'> & { readonly gate_id: string; readonly file: string }

/**
 * Seals and checks facts under the daemon's key: the `disabled_by` metadata of a false-positive
 * replacement, and the daemon mode row in state.db (facts carrying their own `domain`, so no seal of one
 * kind can pass for the other).
 */
export interface DisableSealer {
  seal(facts: DisableFacts | SealedFacts): string
  verify(facts: DisableFacts | SealedFacts, seal: string): boolean
}

/** Facts of another kind than a disable, named by `domain`. */
export interface SealedFacts {
  readonly domain: string
  readonly [key: string]: string | number
}

/** Loads (or creates, 0600) the daemon's seal key and returns a sealer over it. */
export function openDisableSealer(home: string): DisableSealer {
  const path = join(home, 'seal.key')
  let key: Buffer
  try {
    key = readFileSync(path)
  } catch {
    mkdirSync(home, { recursive: true, mode: 0o700 })
    key = randomBytes(32)
    writeFileSync(path, key, { mode: 0o600, flag: 'wx' })
    chmodSync(path, 0o600)
  }
  const mac = (facts: DisableFacts | SealedFacts) =>
    createHmac('sha256', key)
      .update(canonicalize(facts) ?? '')
      .digest('hex')
  return {
    seal: mac,
    verify(facts, seal) {
      const expected = Buffer.from(mac(facts), 'hex')
      const given = Buffer.from(seal, 'hex')
      return given.length === expected.length && timingSafeEqual(given, expected)
    },
  }
}
