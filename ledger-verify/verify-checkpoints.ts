/**
 * Checks signed checkpoints against the recomputed tree: the rows stored in ledger.db and the entries of
 * `checkpoints.log`, which lives outside it — so removing leaves together with their checkpoint rows is still
 * caught. Returns the largest tree size a verified signed checkpoint covers.
 */
import type { SignatureVerifier } from '../core/ledger/ed25519.ts'
import type { CheckpointLogEntry } from '../core/ledger/checkpoint-log.ts'
import type { LeafObject } from '../core/ledger/leaf.ts'
import { EMPTY_ROOT } from '../core/ledger/merkle.ts'
import { checkpointText, noteVerifierKey, verifyNote } from '../core/ledger/signed-note.ts'
import type { SessionTable } from './verify-sessions.ts'

/** A stored checkpoint to check against the recomputed tree. */
export interface CheckpointRecord {
  readonly treeSize: number
  readonly root: Uint8Array
  readonly note: string
  readonly signerKid: string
}

/** The checkpoint log as read (undefined: not checked, e.g. an export without one). */
export interface CheckpointLogInput {
  readonly path: string
  readonly exists: boolean
  readonly entries: readonly CheckpointLogEntry[]
  readonly badLines: readonly number[]
  /** Line count, to tell a torn last line (a crash mid-write) from a damaged one. */
  readonly lines: number
}

export interface CheckpointCheckInput {
  readonly checkpoints: readonly CheckpointRecord[]
  readonly log?: CheckpointLogInput
  readonly origin: string | undefined
  readonly treeSize: number
  /** Recomputed root of the first `size` leaves, or undefined when size exceeds the ledger. */
  readonly rootAt: (size: number) => Buffer | undefined
  readonly table: SessionTable
  readonly verify: SignatureVerifier
  readonly firstLeaf?: LeafObject
  readonly problem: (text: string) => void
}

/** Checks every checkpoint; returns the size covered by verified ones (0 when none). */
export function verifyCheckpoints(input: CheckpointCheckInput): number {
  const { problem, table } = input
  let covered = 0
  const check = (where: string, size: number, root: Uint8Array, note: string, signerKid: string, origin: string, vkey?: string): void => {
    const recomputed = size === 0 ? EMPTY_ROOT : size <= input.treeSize ? input.rootAt(size) : undefined
    if (!recomputed) return problem(`${where}: the ledger has only ${input.treeSize} leaves (leaves were removed)`)
    if (!recomputed.equals(root)) return problem(`${where}: recomputed root differs (history was rewritten)`)
    const session = table.sessions.get(signerKid)
    if (!session?.publicKey) return problem(`${where}: signed by session ${signerKid}, which the ledger does not certify`)
    const expectedKey = noteVerifierKey(origin, session.publicKey)
    if (vkey !== undefined && vkey !== expectedKey) return problem(`${where}: verifier key is not the key of session ${signerKid}`)
    const checked = verifyNote(note, expectedKey, input.verify)
    if (!checked.ok) return problem(`${where}: note ${checked.reason}`)
    if (checked.text !== checkpointText(origin, size, root)) return problem(`${where}: note text does not match the stored root`)
    covered = Math.max(covered, size)
  }
  for (const c of [...input.checkpoints].sort((a, b) => a.treeSize - b.treeSize)) {
    const origin = input.origin ?? c.note.slice(0, c.note.indexOf('\n'))
    check(`checkpoint at size ${c.treeSize}`, c.treeSize, c.root, c.note, c.signerKid, origin)
  }
  const log = input.log
  if (!log) return covered
  if (!log.exists) {
    if (input.checkpoints.length > 0) problem(`${log.path} is missing, but the ledger holds ${input.checkpoints.length} checkpoint(s): the copy kept outside ledger.db was removed`)
    return covered
  }
  for (const line of log.badLines) {
    if (line !== log.lines) problem(`${log.path} line ${line}: not a checkpoint entry`)
  }
  for (const e of log.entries) {
    if (e.origin !== input.origin) continue
    check(`${log.path}: checkpoint at size ${e.tree_size}`, e.tree_size, Buffer.from(e.root, 'base64'), e.note, e.signer_kid, e.origin, e.vkey)
  }
  const replaces = input.firstLeaf?.verdict === 'ledger_created' ? input.firstLeaf.replaces : undefined
  if (replaces && replaces.tree_size !== null) {
    const last = log.entries.filter((e) => e.origin === replaces.origin).at(-1)
    if (last && (last.tree_size !== replaces.tree_size || last.root !== replaces.root)) {
      problem(`seq 0: says it replaces ledger ${replaces.origin} at size ${replaces.tree_size}, but ${log.path} last signed that ledger at size ${last.tree_size}`)
    }
  }
  return covered
}
