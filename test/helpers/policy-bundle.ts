/** Builds signed policy bundles for tests with the same code `svc policy bundle build|sign` uses. */
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packBundle, unpackBundle } from '../../plugins/policy-bundle/archive.ts'
import { generateSigningKey, signFiles } from '../../plugins/policy-bundle/signature.ts'

export type SigningKey = Awaited<ReturnType<typeof generateSigningKey>>
export const newSigningKey = generateSigningKey

/** A daemon-layer policy file with one deny gate on a command. */
export function denyGate(id: string, regex: string): string {
  return `version: 1\nmode: firewall\ngates:\n  - id: ${id}\n    description: org policy (${id})\n    when: { tool: Bash, command_regex: '${regex}' }\n    on_hit: deny\n`
}

export async function buildBundle(opts: { revision: number; files: Record<string, string>; key: SigningKey; expires?: string }): Promise<Buffer> {
  const files = new Map<string, Buffer>(Object.entries(opts.files).map(([n, t]) => [n, Buffer.from(t)]))
  files.set('.manifest', Buffer.from(JSON.stringify({ revision: opts.revision, roots: ['svc'], metadata: opts.expires ? { expires: opts.expires } : {} })))
  files.set('.signatures.json', Buffer.from(await signFiles(files, opts.key.privatePem)))
  return packBundle(files)
}

/** The same bundle with one file's text changed after signing (the signature is kept). */
export async function tamper(bundle: Buffer, name: string, text: string): Promise<Buffer> {
  const files = await unpackBundle(bundle)
  files.set(name, Buffer.from(text))
  return packBundle(files)
}

/** Writes a managed file the way an administrator would (root-owned, 0644) and returns its path. */
export function writeManaged(dir: string, url: string, keys: readonly SigningKey[], extra: Record<string, unknown> = {}): string {
  const path = join(dir, 'managed.json')
  writeFileSync(
    path,
    JSON.stringify({ bundle: { url, keys: keys.map((k) => k.publicPem), polling: { min_delay_seconds: 0.05, max_delay_seconds: 0.1 }, timeout_seconds: 2 }, ...extra }),
  )
  chmodSync(path, 0o644)
  return path
}
