/**
 * The watermark (the ledger's signed size kept outside it) holds every checkpoint the daemon signed, from the
 * moment it is signed: a checkpoint that reached checkpoints.log, or was signed at a clean stop, is never above it.
 * It used to follow the ledger once a second and stopped before the daemon's last checkpoint, so a program that
 * killed the daemon as a checkpoint line appeared (or simply stopped it) could cut that checkpoint and its leaves
 * off, and the daemon started again on the shorter ledger. Real daemons, real SQLite files, a real SIGKILL.
 */
import { afterAll, expect, it, vi } from 'vitest'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { unlockHostKey } from '../../cli/signer/long-lived-key.ts'
import { mintSession } from '../../cli/signer/mint.ts'
import { CompactRange } from '../../core/ledger/compact-range.ts'
import { ledgerMarkerPath } from '../../core/ledger/ledger-guard.ts'
import { hashLeaf } from '../../core/ledger/merkle.ts'
import { tempDir } from '../../test/helpers/daemon.ts'
import { startDaemonProcess, type DaemonProcess } from '../../test/helpers/daemon-process.ts'

vi.setConfig({ testTimeout: 120_000 })
const roots: string[] = []
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

function place() {
  const root = tempDir('svc-watermark-')
  roots.push(root)
  const home = join(root, 'svc-home')
  const user = join(root, 'user')
  mkdirSync(user, { recursive: true })
  const env = { PATH: process.env.PATH, HOME: user, SVC_HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', SVC_LOG_LEVEL: 'info' }
  return { home, env, db: join(home, 'ledger.db'), log: join(home, 'checkpoints.log'), mark: ledgerMarkerPath(env, home)!.replace(/\.json$/, '.watermark.json') }
}
type Place = ReturnType<typeof place>

async function session(p: Place, d: DaemonProcess): Promise<string> {
  const created = await d.post('/v1/sessions/create', mintSession(unlockHostKey('software', { home: p.home, env: p.env })))
  expect(created.status).toBe(201)
  return created.body.session_id as string
}
const check = (d: DaemonProcess, sid: string, command: string) => d.post('/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command } })
const logSizes = (p: Place): number[] =>
  existsSync(p.log)
    ? readFileSync(p.log, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith('}'))
        .map((l) => (JSON.parse(l) as { tree_size: number }).tree_size)
    : []
const markSize = (p: Place): number => (existsSync(p.mark) ? (JSON.parse(readFileSync(p.mark, 'utf8')) as { tree_size: number }).tree_size : -1)

/** A clean cut back to `size` leaves: leaves, checkpoint rows and the log's lines past it, the tree rebuilt (triggers dropped, as an attacker would). */
function cut(p: Place, size: number): void {
  const conn = new DatabaseSync(p.db)
  for (const t of ['leaves', 'nodes', 'checkpoints']) conn.exec(`DROP TRIGGER IF EXISTS ${t}_no_update; DROP TRIGGER IF EXISTS ${t}_no_delete;`)
  conn.exec(`DELETE FROM leaves WHERE seq >= ${size}; DELETE FROM checkpoints WHERE tree_size > ${size}; DELETE FROM nodes;`)
  const range = new CompactRange()
  const insert = conn.prepare('INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)')
  for (const row of conn.prepare('SELECT body FROM leaves ORDER BY seq').all() as { body: string }[])
    for (const n of range.append(hashLeaf(Buffer.from(row.body)))) insert.run(n.level, n.idx, n.hash)
  conn.close()
  const kept = readFileSync(p.log, 'utf8')
    .split('\n')
    .filter((l) => l.endsWith('}') && (JSON.parse(l) as { tree_size: number }).tree_size <= size)
  writeFileSync(p.log, kept.map((l) => `${l}\n`).join(''))
}

async function refusedAfterCut(p: Place, size: number): Promise<void> {
  cut(p, size)
  const outcome = await startDaemonProcess(p.env).then(
    async (d) => {
      await d.stop()
      return `started on a ledger cut back to ${size} leaves (watermark ${markSize(p)})`
    },
    (err: Error) => err.message,
  )
  expect(outcome).toMatch(/the ledger was cut short, so the daemon does not start/)
}

it('records the checkpoint a clean stop signs: cutting it off is refused at the next start', async () => {
  const p = place()
  const d = await startDaemonProcess(p.env)
  const sid = await session(p, d)
  for (const c of ['echo one', 'echo two', 'echo three']) await check(d, sid, c)
  expect(await d.stop()).toBe(0)
  const sizes = logSizes(p)
  const last = sizes.at(-1)!
  expect(markSize(p), 'the watermark holds the last checkpoint signed').toBe(last)
  await refusedAfterCut(p, sizes.at(-2) ?? 0)
})

it('is never behind checkpoints.log: a SIGKILL the moment a checkpoint line appears, then a cut of it, is refused', async () => {
  const p = place()
  const d = await startDaemonProcess({ ...p.env, SVC_CHECKPOINT_INTERVAL: '50ms' })
  const sid = await session(p, d)
  // The attacker: checks keep coming; it watches the log and kills the daemon as soon as a checkpoint line is
  // ahead of the watermark (or after a few seconds of finding none).
  let running = true
  const load = (async () => {
    for (let i = 0; running; i++) await check(d, sid, `echo ${i}`).catch(() => undefined)
  })()
  const t0 = Date.now()
  let ahead = false
  while (Date.now() - t0 < 6000 && !(ahead = (logSizes(p).at(-1) ?? -1) > markSize(p) && logSizes(p).length >= 2)) await new Promise((r) => setTimeout(r, 2))
  d.child.kill('SIGKILL')
  running = false
  await new Promise((r) => d.child.once('exit', r))
  await load
  const sizes = logSizes(p)
  expect(sizes.length).toBeGreaterThanOrEqual(2)
  expect({ ahead, mark: markSize(p) }).toEqual({ ahead: false, mark: expect.any(Number) })
  await refusedAfterCut(p, sizes.at(-2)!)
})
