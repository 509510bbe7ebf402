/**
 * A fresh $SVC_HOME gets its operator password record the way the daemon would write it (daemon/auth/password.ts,
 * the real scrypt parameters), hashed once per test run (test/global-setup.ts) instead of once per daemon start:
 * the daemon only hashes SVC_ADMIN_PASSWORD when no record exists, and logins still verify against real scrypt.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import { setPassword } from '../../daemon/auth/password.ts'

/** The operator passwords tests use, hashed once per run. */
export const TEST_PASSWORDS = ['correct horse battery', 'operator-password'] as const

const made = new Map<string, string>()

/** auth.json text for `password`: from the run's records, else hashed once in this process. */
function record(password: string): string {
  const provided = inject('operatorAuthRecords')?.[password]
  if (provided) return provided
  let text = made.get(password)
  if (text === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-auth-template-'))
    setPassword(dir, password)
    text = readFileSync(join(dir, 'auth.json'), 'utf8')
    rmSync(dir, { recursive: true, force: true })
    made.set(password, text)
  }
  return text
}

/**
 * Writes `<home>/auth.json` for env.SVC_ADMIN_PASSWORD when the daemon would create it at its first start
 * (password mode, no record yet); creates the home as the daemon does (0700). Does nothing otherwise.
 */
export function seedOperatorPassword(home: string, env: NodeJS.ProcessEnv): void {
  const password = env.SVC_ADMIN_PASSWORD
  if (!password || (env.SVC_AUTH_MODE ?? 'password') !== 'password' || existsSync(join(home, 'auth.json'))) return
  mkdirSync(home, { recursive: true, mode: 0o700 })
  writeFileSync(join(home, 'auth.json'), record(password), { mode: 0o600 })
}
