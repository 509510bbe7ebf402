/**
 * The per-install hook key: the hook shim sends a fresh nonce with every call and accepts an answer only
 * with `x-svc-mac`, an HMAC-SHA256 under this key over the nonce, the route and the exact body. Something
 * else listening on the daemon's port (an agent that crashed the daemon and bound its port) cannot answer
 * "allow" without the key, and an answer recorded earlier does not fit a new nonce.
 *
 * The key is 64 hex characters in `$SVC_HOME/hook.key` (mode 0600): the daemon and `svc install` both make
 * it when missing, so whichever runs first creates it and the other reads the same file. The HMAC key is the
 * hex text itself (what `openssl dgst -hmac` takes on every supported OS).
 */
import { createHmac, randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const HOOK_KEY_FILE = 'hook.key'
const KEY = /^[0-9a-f]{64}$/
/** A nonce the shim sends (`openssl rand -hex 16`); anything else gets no MAC. */
export const HOOK_NONCE = /^[0-9a-f]{32,128}$/

/** The hook key of `svcHome`, created (0600, in a 0700 directory) when missing; a malformed file is an error. */
export function ensureHookKey(svcHome: string): string {
  const path = join(svcHome, HOOK_KEY_FILE)
  try {
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      mkdirSync(svcHome, { recursive: true, mode: 0o700 })
      return ensureHookKey(svcHome)
    }
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  // Never readable by others: whoever reads it can answer for the daemon.
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600)
  const key = readFileSync(path, 'utf8').trim()
  if (!KEY.test(key)) throw new Error(`${path} is not a hook key (64 hex characters); delete it and run \`svc install\` again`)
  return key
}

/** The MAC the daemon sends and the shim checks: HMAC-SHA256(key, "svc-hook-mac/v1\n" nonce "\n" harness "\n" event "\n" body), hex. */
export function hookMac(key: string, nonce: string, harness: string, event: string, body: string): string {
  return createHmac('sha256', key).update(`svc-hook-mac/v1\n${nonce}\n${harness}\n${event}\n${body}`).digest('hex')
}
