/** Builders for ledger tests: a temp dir, a certified session, and decision drafts. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newSeed, signingKeyFromSeed, type SigningKey } from '../core/ledger/ed25519.ts'
import type { LeafDraft } from '../core/ledger/leaf.ts'
import { sessionIdFor, signSessionBundle } from '../core/trust/session-cert.ts'
import type { SessionCertificate } from '../core/types.ts'
import type { SignerKind } from '../core/types.ts'

/** A fresh temp directory and its cleanup. */
export function tempDir(prefix = 'svc-ledger-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A session key certified by a host key, as the CLI would mint it. */
export interface TestSession {
  readonly id: string
  readonly signer: SignerKind
  readonly key: SigningKey
  readonly hostKey: SigningKey
  readonly certificate: SessionCertificate
}

export function certifiedSession(signer: SignerKind = 'software', hostKey = signingKeyFromSeed(newSeed()), now = Date.now()): TestSession {
  const key = signingKeyFromSeed(newSeed())
  const id = sessionIdFor(key.publicKey)
  const certificate = signSessionBundle(
    {
      v: 1,
      session_id: id,
      signer,
      session_public_key: key.publicKey.toString('base64'),
      host_public_key: hostKey.publicKey.toString('base64'),
      issued_at_ms: now,
      expires_at_ms: now + 12 * 3600_000,
    },
    hostKey,
  )
  return { id, signer, key, hostKey, certificate }
}

/** The session_created leaf draft for a session. */
export function sessionDraft(s: TestSession, at = Date.now()): LeafDraft {
  return { ...decisionDraft(s.id, s.signer, 0, at), kind: 'session', verdict: 'session_created', tool: '', source: 'cli', certificate: s.certificate }
}

/** A decision draft; `i` varies the content. */
export function decisionDraft(sessionId: string, signer: SignerKind | 'none', i: number, at = Date.now()): LeafDraft {
  return {
    kind: 'decision',
    sessionId,
    signer,
    source: 'test-harness',
    tool: 'Bash',
    verdict: i % 3 === 0 ? 'deny' : 'allow',
    monitorMatch: false,
    ruleId: i % 3 === 0 ? 'no-rm-rf' : '',
    toolUseId: `tu_${i}`,
    policyTrace: [{ layer: 'daemon', source: 'daemon', verdict: i % 3 === 0 ? 'deny' : 'none', ...(i % 3 === 0 ? { rule_id: 'no-rm-rf' } : {}) }],
    payloadHash: `sha256:${i.toString(16).padStart(64, '0')}`,
    reason: i % 3 === 0 ? 'rm -rf / is blocked' : 'no gate matched',
    at,
  }
}
