/**
 * The TOTP mint path against guessing and races, with real files, real scrypt and real processes: wrong codes
 * lock the signer for a while (the right code too, until the lock passes), and a re-enrollment (a rotation) while
 * another process is minting is never undone by that mint writing the old secrets back.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateSync } from 'otplib'
import { enrollTotp, totpFilePath, unlockTotp } from './totp-signer.ts'

const passphrase = 'correct horse battery'
const cheap = { N: 2 ** 10, r: 8, p: 1 }
let home: string
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-totp-guess-'))
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

const secretOf = (uri: string) => new URL(uri).searchParams.get('secret')!
const codeAt = (secret: string, ms: number) => generateSync({ secret, epoch: Math.floor(ms / 1000) })
/** A code valid in none of the steps around `ms`. */
function wrongCode(secret: string, ms: number, n: number): string {
  const valid = new Set([-30_000, 0, 30_000].map((d) => codeAt(secret, ms + d)))
  for (let c = n * 7919; ; c++) {
    const code = String(c % 1_000_000).padStart(6, '0')
    if (!valid.has(code)) return code
  }
}

it('locks the signer after repeated wrong codes: the right code is refused until the lock passes', () => {
  const { uri } = enrollTotp(home, passphrase, { sealCost: cheap })
  const secret = secretOf(uri)
  const now = Date.now()
  for (let i = 0; i < 5; i++) expect(() => unlockTotp(home, wrongCode(secret, now, i), passphrase, now + i)).toThrow(/wrong or already-used TOTP code/)
  expect(() => unlockTotp(home, codeAt(secret, now), passphrase, now + 10)).toThrow(/locked/)
  // Once the lock has passed, a fresh code mints, and the count starts again.
  const later = now + 10 * 60_000
  expect(unlockTotp(home, codeAt(secret, later), passphrase, later).publicKey).toBeDefined()
  expect(() => unlockTotp(home, wrongCode(secret, later + 60_000, 9), passphrase, later + 60_000)).toThrow(/wrong or already-used TOTP code/)
})

it('a rotation while another process mints is not undone by that mint', async () => {
  // The minting process uses the default (slow) scrypt cost, so the rotation lands while it unseals.
  enrollTotp(home, passphrase)
  const before = JSON.parse(readFileSync(totpFilePath(home), 'utf8')) as { public_key: string }
  const secret = secretOf(enrollTotp(home, passphrase).uri) // enroll again: the mint below uses this one
  const current = JSON.parse(readFileSync(totpFilePath(home), 'utf8')) as { public_key: string }
  expect(current.public_key).not.toBe(before.public_key)
  const module = fileURLToPath(new URL('./totp-signer.ts', import.meta.url))
  const script = `import { unlockTotp } from ${JSON.stringify(module)}; console.log('go'); try { unlockTotp(${JSON.stringify(home)}, ${JSON.stringify(codeAt(secret, Date.now()))}, ${JSON.stringify(passphrase)}); console.log('minted') } catch (e) { console.log('refused ' + e.message) }`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  await new Promise<void>((r) => {
    const t = setInterval(() => {
      if (!out.includes('go')) return
      clearInterval(t)
      r()
    }, 5)
  })
  // The rotation, while the other process unseals (a leaked secret being replaced).
  let rotated: string | undefined
  try {
    rotated = enrollTotp(home, passphrase, { sealCost: cheap }).publicKey.toString('base64')
  } catch (err) {
    expect((err as Error).message).toMatch(/another mint or enrollment/)
  }
  await new Promise((r) => child.once('exit', r))
  const after = JSON.parse(readFileSync(totpFilePath(home), 'utf8')) as { public_key: string }
  if (rotated) expect(after.public_key, `the mint (${out.trim()}) wrote the old enrollment back over the rotation`).toBe(rotated)
  else expect(after.public_key).toBe(current.public_key)
}, 60_000)
