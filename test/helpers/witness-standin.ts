/**
 * A C2SP witness stand-in written from c2sp.org/tlog-witness (no real witness can run here: litewitness and
 * omniwitness are Go programs). `POST /add-checkpoint`: 404 unknown origin, 403 no valid signature by a
 * configured log key (unknown keys ignored), 400 old > size or malformed, 409 `text/x.tlog.size` when old is not
 * its stored size or when the same size comes with another root, 422 when the RFC 6962 consistency proof does
 * not verify; otherwise it stores the new size and root atomically (one request at a time) and answers a
 * timestamped Ed25519 cosignature line (c2sp.org/tlog-cosignature).
 */
import { createServer, type Server } from 'node:http'
import { parseCheckpoint, signingKeyFromSeed, verifyNative, verifyNote, newSeed } from '../../core/index.ts'
import { verifyConsistency } from '../../ledger-verify/index.ts'
import { cosign, cosignerVkey } from '../../plugins/witness/index.ts'

export interface WitnessStandIn {
  readonly url: string
  readonly name: string
  readonly vkey: string
  /** origin → latest cosigned size and root. */
  readonly state: Map<string, { size: number; root: Buffer }>
  /** Every answer's status, in order. */
  readonly statuses: number[]
  addLog(vkey: string): void
  close(): Promise<void>
}

export async function startWitnessStandIn(name: string): Promise<WitnessStandIn> {
  const key = signingKeyFromSeed(newSeed())
  const logs = new Map<string, string>() // origin → log vkey
  const state = new Map<string, { size: number; root: Buffer }>()
  const statuses: number[] = []
  const answer = (body: string): { status: number; type?: string; text: string } => {
    const head = /^old (0|[1-9][0-9]*)\n((?:[A-Za-z0-9+/]+=*\n){0,63})\n/.exec(body)
    if (!head) return { status: 400, text: 'malformed request\n' }
    const old = Number(head[1])
    const proof = head[2]!
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => Buffer.from(l, 'base64'))
    const note = body.slice(head[0].length)
    const cp = parseCheckpoint(note)
    if (!cp) return { status: 400, text: 'malformed checkpoint\n' }
    const vkey = logs.get(cp.origin)
    if (!vkey) return { status: 404, text: 'unknown origin\n' }
    const checked = verifyNote(note, vkey, verifyNative)
    if (!checked.ok) return { status: 403, text: `${checked.reason}\n` }
    if (old > cp.size) return { status: 400, text: 'old size is larger than the checkpoint size\n' }
    const known = state.get(cp.origin) ?? { size: 0, root: Buffer.alloc(0) }
    if (old !== known.size) return { status: 409, type: 'text/x.tlog.size', text: `${known.size}\n` }
    if (old === cp.size) {
      if (!known.root.equals(cp.root)) return { status: 409, type: 'text/x.tlog.size', text: `${known.size}\n` }
    } else if (old > 0) {
      const ok = verifyConsistency(old, cp.size, proof, known.root, cp.root)
      if (!ok.ok) return { status: 422, text: `${ok.reason}\n` }
    } else if (proof.length > 0) return { status: 400, text: 'a proof from size 0 must be empty\n' }
    state.set(cp.origin, { size: cp.size, root: cp.root })
    return { status: 200, text: `${cosign(name, key, checked.text, BigInt(Math.floor(Date.now() / 1000)))}\n` }
  }
  const server: Server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => (body += c))
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/add-checkpoint') return void res.writeHead(404).end()
      const a = answer(body) // synchronous: check and update are atomic
      statuses.push(a.status)
      res.writeHead(a.status, { 'content-type': a.type ?? 'text/plain; charset=utf-8' }).end(a.text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}`,
    name,
    vkey: cosignerVkey(name, key.publicKey),
    state,
    statuses,
    addLog: (vkey) => void logs.set(vkey.slice(0, vkey.indexOf('+')), vkey),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
