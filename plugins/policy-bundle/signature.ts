/**
 * `.signatures.json` as OPA writes it: `{"signatures": ["<JWS>"]}`, one compact JWS (EdDSA over Ed25519)
 * whose payload lists every other file with its SHA-256 (`files[{name, hash, algorithm}]`). The key id is
 * derived from the public key, so the managed file pins keys by value and cannot name the wrong one.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto'
import { sha256 } from '../../core/index.ts'
import { BundleError, SIGNATURES } from './layout.ts'

const ALG = 'EdDSA'

export interface SignedFile {
  readonly name: string
  readonly hash: string
  readonly algorithm: 'SHA-256'
}

/** A pinned bundle-signing public key (SPKI PEM) and the key id derived from it. */
export interface TrustRoot {
  readonly keyid: string
  readonly pem: string
}

/** The key id of an Ed25519 public key: `ed25519:` and the first 16 bytes of the SHA-256 of its SPKI form, in hex. */
export function keyIdOf(publicPem: string): string {
  let der: Buffer
  try {
    const key = createPublicKey(publicPem)
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`is a ${key.asymmetricKeyType} key, not Ed25519`)
    der = key.export({ type: 'spki', format: 'der' })
  } catch (err) {
    throw new BundleError(`bundle-signing public key ${(err as Error).message.startsWith('is a') ? (err as Error).message : 'is not an SPKI PEM Ed25519 key'}`)
  }
  return `ed25519:${sha256(der).slice(0, 32)}`
}

export function trustRoot(publicPem: string): TrustRoot {
  return { keyid: keyIdOf(publicPem), pem: publicPem.trim() }
}

/** A new bundle-signing key pair as PEM (PKCS#8 private, SPKI public). */
/** jose, loaded when a bundle is first signed or checked (the daemon starts without it: most have no managed bundle). */
const jose = () => import('jose')

export async function generateSigningKey(): Promise<{ privatePem: string; publicPem: string; keyid: string }> {
  const { exportPKCS8, exportSPKI, generateKeyPair } = await jose()
  const { privateKey, publicKey } = await generateKeyPair('Ed25519', { extractable: true })
  const publicPem = await exportSPKI(publicKey)
  return { privatePem: await exportPKCS8(privateKey), publicPem, keyid: keyIdOf(publicPem) }
}

/** The signed list: every file but `.signatures.json`, sorted by name. */
export function fileList(files: ReadonlyMap<string, Uint8Array>): SignedFile[] {
  return [...files.keys()]
    .filter((n) => n !== SIGNATURES)
    .sort()
    .map((name) => ({ name, hash: sha256(files.get(name)!), algorithm: 'SHA-256' as const }))
}

/** `.signatures.json` for these files, signed with a PKCS#8 PEM Ed25519 private key. */
export async function signFiles(files: ReadonlyMap<string, Uint8Array>, privatePem: string): Promise<string> {
  const { CompactSign, importPKCS8 } = await jose()
  let key: Awaited<ReturnType<typeof importPKCS8>>
  let publicPem: string
  try {
    key = await importPKCS8(privatePem, ALG)
    publicPem = createPublicKey(createPrivateKey(privatePem)).export({ type: 'spki', format: 'pem' }).toString()
  } catch (err) {
    throw new BundleError(`bundle-signing key is not a PKCS#8 PEM Ed25519 private key: ${(err as Error).message}`)
  }
  const payload = { files: fileList(files), keyid: keyIdOf(publicPem), iat: Math.floor(Date.now() / 1000) }
  const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: ALG, kid: payload.keyid }).sign(key)
  return `${JSON.stringify({ signatures: [jws] }, null, 2)}\n`
}

/**
 * Checks `.signatures.json` against the trust roots and every file's hash: the one signature must be by a
 * pinned key, and the signed list must name exactly the bundle's files with their exact hashes.
 * Returns the signing key's id; throws BundleError naming what failed.
 */
export async function verifyFiles(files: ReadonlyMap<string, Uint8Array>, roots: readonly TrustRoot[]): Promise<string> {
  const { compactVerify, decodeProtectedHeader, importSPKI } = await jose()
  const raw = files.get(SIGNATURES)
  if (!raw) throw new BundleError('bundle is not signed (no .signatures.json)')
  let jws: string
  try {
    const parsed = JSON.parse(Buffer.from(raw).toString('utf8')) as { signatures?: unknown }
    if (!Array.isArray(parsed.signatures) || parsed.signatures.length !== 1 || typeof parsed.signatures[0] !== 'string')
      throw new Error('expected {"signatures": ["<JWS>"]} with exactly one signature')
    jws = parsed.signatures[0]
  } catch (err) {
    throw new BundleError(`.signatures.json: ${(err as Error).message}`)
  }
  let kid: unknown
  try {
    kid = decodeProtectedHeader(jws).kid
  } catch {
    throw new BundleError('.signatures.json: the signature is not a compact JWS')
  }
  const root = roots.find((r) => r.keyid === kid)
  if (!root) throw new BundleError(`bundle signed by key ${String(kid)}, which is not a pinned bundle-signing key (${roots.map((r) => r.keyid).join(', ') || 'none pinned'})`)
  let payload: { files?: SignedFile[] }
  try {
    const verified = await compactVerify(jws, await importSPKI(root.pem, ALG), { algorithms: [ALG] })
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as { files?: SignedFile[] }
  } catch (err) {
    throw new BundleError(`bundle signature does not verify with key ${root.keyid}: ${(err as Error).message}`)
  }
  const signed = new Map((payload.files ?? []).map((f) => [f.name, f]))
  for (const actual of fileList(files)) {
    const claim = signed.get(actual.name)
    if (!claim) throw new BundleError(`"${actual.name}" is in the bundle but not in its signed file list`)
    if (claim.algorithm !== 'SHA-256' || claim.hash !== actual.hash) throw new BundleError(`"${actual.name}" does not match its signed hash (tampered)`)
    signed.delete(actual.name)
  }
  if (signed.size > 0) throw new BundleError(`signed file "${[...signed.keys()][0]}" is missing from the bundle`)
  return root.keyid
}
