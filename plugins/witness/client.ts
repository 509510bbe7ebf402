/**
 * The tlog-witness `add-checkpoint` call (c2sp.org/tlog-witness), client side: POST
 * `<submission prefix>/add-checkpoint` with `old <size>\n`, the RFC 6962 consistency proof (one base64 hash per
 * line, none when old is 0, at most 63), an empty line, then the signed checkpoint. 409 with
 * `Content-Type: text/x.tlog.size` carries the witness's latest cosigned size: adopt it and retry once with a
 * proof from there. 200 is one or more cosignature lines; only the configured witness key's line is kept,
 * and only after it verifies. 404 unknown origin, 403 no trusted signature, 400 bad request, 422 bad proof.
 */
import { verifyCosignature, type WitnessKey } from './cosignature.ts'

export interface WitnessTarget extends WitnessKey {
  readonly url: string
}

export type WitnessReply =
  | { readonly kind: 'cosigned'; readonly line: string; readonly timestamp: number; readonly oldSize: number }
  /** The witness has cosigned a larger tree than this ledger holds: this ledger went back (or was replaced). */
  | { readonly kind: 'rolled_back'; readonly witnessSize: number }
  | { readonly kind: 'refused'; readonly status: number; readonly reason: string }

export interface CheckpointToWitness {
  /** The checkpoint body (origin, size, root lines). */
  readonly body: string
  /** The full signed note (log-key signature included). */
  readonly note: string
  readonly size: number
  /** RFC 6962 consistency proof from `old` to `size` (called only for 0 < old < size). */
  readonly proof: (old: number) => Buffer[]
}

function requestBody(old: number, cp: CheckpointToWitness): string {
  const proof = old > 0 && old < cp.size ? cp.proof(old) : []
  return `old ${old}\n${proof.map((h) => `${h.toString('base64')}\n`).join('')}\n${cp.note}`
}

/** Submits a checkpoint to one witness, starting from the size last known to be cosigned there. */
export async function addCheckpoint(w: WitnessTarget, cp: CheckpointToWitness, knownSize: number, timeoutMs = 10_000): Promise<WitnessReply> {
  let old = knownSize
  for (let attempt = 0; attempt < 2; attempt++) {
    if (old > cp.size) return { kind: 'rolled_back', witnessSize: old }
    const res = await fetch(`${w.url.replace(/\/$/, '')}/add-checkpoint`, { method: 'POST', body: requestBody(old, cp), signal: AbortSignal.timeout(timeoutMs) })
    const text = await res.text()
    if (res.status === 409 && (res.headers.get('content-type') ?? '').startsWith('text/x.tlog.size')) {
      const size = /^(0|[1-9][0-9]*)\n$/.exec(text)
      if (!size) return { kind: 'refused', status: 409, reason: 'malformed size reply' }
      if (Number(size[1]) === old) return { kind: 'refused', status: 409, reason: `witness holds a different tree of size ${old} (fork)` }
      old = Number(size[1])
      continue
    }
    if (res.status !== 200) return { kind: 'refused', status: res.status, reason: text.trim().slice(0, 200) || res.statusText }
    for (const line of text.split('\n').filter((l) => l !== '')) {
      const v = verifyCosignature(line, w, cp.body, Math.floor(Date.now() / 1000))
      if (v.ok) return { kind: 'cosigned', line, timestamp: v.timestamp, oldSize: old }
    }
    return { kind: 'refused', status: 200, reason: `no valid cosignature by ${w.name} in the reply` }
  }
  return { kind: 'refused', status: 409, reason: 'witness size kept changing' }
}
