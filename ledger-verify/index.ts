/**
 * Offline ledger verification's public face: what the CLI (`svc ledger verify`, `svc ledger export`,
 * `svc fleet verify`), the daemon's proof routes and benches use. It checks a ledger from its stored or shipped
 * bytes alone (leaf hashes, the chain, session certificates against the trusted host keys, leaf signatures,
 * checkpoints, RFC 6962 proofs), so it may run where no daemon does. A library: it registers nothing.
 * @module
 */
export { exportLedger, sourceFromExport } from './export.ts'
export { verifyConsistency } from './proof-verify.ts'
export { verifierFor } from './verifiers.ts'
export type { CheckpointLogInput } from './verify-checkpoints.ts'
export { verifyLedger, type LedgerVerifyReport } from './verify-ledger.ts'
export type { TrustedHostKey } from './verify-sessions.ts'
export { verifyLedgerDatabase } from './verify-parallel.ts'
