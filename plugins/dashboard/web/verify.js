// In-browser verification of svc ledger proofs with nothing but WebCrypto (SHA-256, Ed25519): RFC 6962 leaf
// hashes, audit paths, consistency proofs, and C2SP signed-note checkpoints. Plain ES module, no imports, so the
// test suite runs the same file in Node against the shared RFC vectors.

const enc = new TextEncoder()

export function fromBase64(text) {
  if (typeof text !== 'string' || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) throw new Error('not standard base64')
  const bin = atob(text)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

export function toBase64(bytes) {
  let bin = ''
  for (const b of bytes) bin += String.fromCharCode(b)
  return btoa(bin)
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

export function fromHex(hex) {
  return new Uint8Array((hex.match(/../g) ?? []).map((h) => parseInt(h, 16)))
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

export function equalBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

export async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
}

/** SHA-256(0x00 || leaf). */
export const hashLeaf = (leaf) => sha256(concat(Uint8Array.of(0), leaf))
/** SHA-256(0x01 || left || right). */
export const hashChildren = (left, right) => sha256(concat(Uint8Array.of(1), left, right))

const half = (x) => Math.floor(x / 2)
const odd = (x) => x % 2 === 1

/** The root an audit path leads to (RFC 9162 2.1.3.2), or a string saying why the path cannot fit (index, size). */
export async function rootFromInclusion(index, size, leafHash, proof) {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return `leaf index ${index} is not below tree size ${size}`
  if (leafHash.length !== 32 || proof.some((p) => p.length !== 32)) return 'every hash must be 32 bytes'
  let a = index
  let b = size - 1
  let h = leafHash
  for (const p of proof) {
    if (b === 0) return 'proof is longer than the tree is tall'
    if (odd(a) || a === b) {
      h = await hashChildren(p, h)
      if (!odd(a)) while (!odd(a) && a !== 0) [a, b] = [half(a), half(b)]
    } else h = await hashChildren(h, p)
    ;[a, b] = [half(a), half(b)]
  }
  return b === 0 ? h : 'proof is shorter than the tree is tall'
}

/** RFC 9162 2.1.4.2: is the tree (size1, root1) a prefix of (size2, root2)? Answers { ok, reason }. */
export async function verifyConsistency(size1, size2, proof, root1, root2) {
  const fail = (reason) => ({ ok: false, reason })
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 1) return fail('sizes must be integers, the old one at least 1')
  if (size1 > size2) return fail(`old size ${size1} is larger than new size ${size2}`)
  if (size1 === size2) return proof.length === 0 && equalBytes(root1, root2) ? { ok: true } : fail('equal sizes need an empty proof and equal roots')
  if (proof.length === 0 || proof.some((p) => p.length !== 32)) return fail('proof is empty or holds a hash that is not 32 bytes')
  const path = (size1 & (size1 - 1)) === 0 ? [root1, ...proof] : proof
  let a = size1 - 1
  let b = size2 - 1
  while (odd(a)) [a, b] = [half(a), half(b)]
  let x = path[0]
  let y = path[0]
  for (const c of path.slice(1)) {
    if (b === 0) return fail('proof is longer than needed')
    if (odd(a) || a === b) {
      x = await hashChildren(c, x)
      y = await hashChildren(c, y)
      if (!odd(a)) while (!odd(a) && a !== 0) [a, b] = [half(a), half(b)]
    } else y = await hashChildren(y, c)
    ;[a, b] = [half(a), half(b)]
  }
  if (b !== 0) return fail('proof is shorter than needed')
  if (!equalBytes(x, root1)) return fail('old root mismatch')
  if (!equalBytes(y, root2)) return fail('new root mismatch')
  return { ok: true }
}

export async function verifyEd25519(publicKey, signature, message) {
  try {
    const key = await crypto.subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify'])
    return await crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message)
  } catch {
    return false
  }
}

/** Verifies a C2SP signed note against a vkey `name+hex(keyid)+base64(0x01||pub)`: { ok, reason, text }. */
export async function verifyNote(note, vkey) {
  // name+hex(keyid)+base64: split at the first two '+' only (base64 has '+' of its own).
  const text0 = String(vkey)
  const first = text0.indexOf('+')
  const second = text0.indexOf('+', first + 1)
  const name = text0.slice(0, Math.max(first, 0))
  const keyIdHex = text0.slice(first + 1, second)
  let raw
  try {
    raw = fromBase64(text0.slice(second + 1))
  } catch {
    return { ok: false, reason: 'malformed verifier key' }
  }
  if (first <= 0 || second < 0 || raw.length !== 33 || raw[0] !== 1) return { ok: false, reason: 'malformed verifier key' }
  const publicKey = raw.subarray(1)
  const keyId = (await sha256(concat(enc.encode(`${name}\n`), raw))).subarray(0, 4)
  if (toHex(keyId) !== keyIdHex) return { ok: false, reason: 'verifier key id does not match its key' }
  const split = note.lastIndexOf('\n\n')
  if (split < 0 || !note.endsWith('\n')) return { ok: false, reason: 'note has no signature block' }
  const text = note.slice(0, split + 1)
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line)
    if (!m) return { ok: false, reason: 'malformed signature line' }
    let blob
    try {
      blob = fromBase64(m[2])
    } catch {
      return { ok: false, reason: 'signature is not base64' }
    }
    if (m[1] !== name || blob.length !== 68 || !equalBytes(blob.subarray(0, 4), keyId)) continue
    const ok = await verifyEd25519(publicKey, blob.subarray(4), enc.encode(text))
    return ok ? { ok: true, text, publicKey } : { ok: false, reason: 'Ed25519 signature does not verify' }
  }
  return { ok: false, reason: 'no signature by the known key' }
}

/** Parses checkpoint text `origin\nsize\nbase64(root)\n`. */
export function parseCheckpoint(text) {
  const m = /^([^\n]+)\n(0|[1-9][0-9]*)\n([A-Za-z0-9+/=]+)\n/.exec(text)
  if (!m) return undefined
  try {
    const root = fromBase64(m[3])
    return root.length === 32 ? { origin: m[1], size: Number(m[2]), root } : undefined
  } catch {
    return undefined
  }
}

const LEAF_SIG_PREFIX = enc.encode('svc/leaf-sig/v1\n')

async function attempt(name, run) {
  try {
    const r = await run()
    return { name, ok: r === true, detail: r === true ? 'passed' : String(r) }
  } catch (err) {
    return { name, ok: false, detail: String(err?.message ?? err) }
  }
}

/**
 * Every step that proves one decision: from the exact leaf bytes to a checkpoint its session key signed.
 * `proof` is GET /v1/ledger/proof/:seq (taken at the checkpoint's size), `root` is GET /v1/ledger/root.
 * Returns [{ name, ok, detail }]; a step that cannot run for want of an earlier one fails too.
 */
export async function verifyDecision(proof, root) {
  const steps = []
  let leafBytes
  let leafHash
  steps.push(
    await attempt('leaf hash = SHA-256(0x00 || leaf bytes)', async () => {
      leafBytes = fromBase64(proof.leaf)
      leafHash = await hashLeaf(leafBytes)
      return equalBytes(leafHash, fromBase64(proof.leaf_hash)) || `computed ${toBase64(leafHash)}, the daemon says ${proof.leaf_hash}`
    }),
  )
  steps.push(
    await attempt('leaf names its seq', async () => {
      const seq = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(leafBytes)).seq
      return seq === proof.seq || `leaf says seq ${seq}, proof says ${proof.seq}`
    }),
  )
  let computedRoot
  steps.push(
    await attempt(`audit path (${proof.proof?.length ?? 0} hashes) leads to the root`, async () => {
      const r = await rootFromInclusion(proof.seq, proof.tree_size, leafHash, proof.proof.map(fromBase64))
      if (typeof r === 'string') return r
      computedRoot = r
      return equalBytes(r, fromBase64(proof.root)) || `computed root ${toBase64(r)} differs from ${proof.root}`
    }),
  )
  let checkpoint
  steps.push(
    await attempt('checkpoint names this tree size and root', async () => {
      if (!root.checkpoint) return 'no signed checkpoint (no session with a signing key is active)'
      checkpoint = parseCheckpoint(root.checkpoint)
      if (!checkpoint) return 'malformed checkpoint'
      if (checkpoint.size !== proof.tree_size) return `checkpoint covers ${checkpoint.size} leaves, the proof ${proof.tree_size}`
      return (computedRoot !== undefined && equalBytes(checkpoint.root, computedRoot)) || 'checkpoint root differs from the computed root'
    }),
  )
  steps.push(
    await attempt('checkpoint Ed25519 signature (WebCrypto)', async () => {
      if (!root.checkpoint || !root.vkey) return 'no signed checkpoint'
      const r = await verifyNote(root.checkpoint, root.vkey)
      if (!r.ok) return r.reason
      // The note key must be the session's own (from its certificate), not any key the daemon names.
      return !root.session_public_key || equalBytes(r.publicKey, fromBase64(root.session_public_key)) || 'checkpoint key is not the session key'
    }),
  )
  if (proof.leaf_sig && proof.session_public_key) {
    steps.push(
      await attempt('leaf Ed25519 signature by its session key', async () => {
        if (!leafHash) return 'no leaf hash'
        return (await verifyEd25519(fromBase64(proof.session_public_key), fromBase64(proof.leaf_sig), concat(LEAF_SIG_PREFIX, leafHash))) || 'signature does not verify'
      }),
    )
  }
  return steps
}
