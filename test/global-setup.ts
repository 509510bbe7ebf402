/**
 * Runs once per `vitest run`, in the main process: hashes the test operator password once, so the hundreds of
 * fresh homes a run creates get the same genuine scrypt record (test/helpers/operator-password.ts) instead of
 * each daemon paying the KDF again at its first start. The daemon's own path (hash at first start) keeps its
 * tests: test/auth.api.test.ts starts its daemon without a seeded record.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { setPassword } from '../daemon/auth/password.ts'
import { TEST_PASSWORDS } from './helpers/operator-password.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** auth.json text by operator password, made by the product's own setPassword. */
    operatorAuthRecords: Record<string, string>
  }
}

export default function setup(project: TestProject): void {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-template-'))
  try {
    const records: Record<string, string> = {}
    for (const password of TEST_PASSWORDS) {
      setPassword(dir, password)
      records[password] = readFileSync(join(dir, 'auth.json'), 'utf8')
    }
    project.provide('operatorAuthRecords', records)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
