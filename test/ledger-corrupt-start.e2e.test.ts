/**
 * A corrupted ledger at start, through the real daemon and real SQLite files: bytes flipped in the WAL that holds
 * acknowledged decisions (after a SIGKILL), and bytes flipped in ledger.db itself. The daemon must not start on
 * fewer leaves than it acknowledged, and must say what is wrong and with which file.
 */
import { afterAll, expect, it, vi } from 'vitest'
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess } from './helpers/daemon-process.ts'

vi.setConfig({ testTimeout: 180_000 })
const roots: string[] = []
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

function place() {
  const root = tempDir('svc-corrupt-')
  roots.push(root)
  const home = join(root, 'svc-home')
  const user = join(root, 'user')
  mkdirSync(user, { recursive: true })
  const env = { PATH: process.env.PATH, HOME: user, SVC_HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', SVC_LOG_LEVEL: 'info' }
  return { home, env, db: join(home, 'ledger.db') }
}

/** Records `n` decisions; answers the highest seq acknowledged. `kill`: SIGKILL (the WAL keeps the frames), else a clean stop. */
async function record(p: ReturnType<typeof place>, n: number, kill: boolean): Promise<number> {
  const d = await startDaemonProcess(p.env)
  const created = await d.post('/v1/sessions/create', mintSession(unlockHostKey('software', { home: p.home, env: p.env })))
  let last = -1
  for (let i = 0; i < n; i++)
    last = (await d.post('/v1/gates/check', { session_id: created.body.session_id, source: 'claude-code', tool: 'Bash', input: { command: `echo ${i}` } })).body.ledger_seq
  if (kill) {
    // A signed checkpoint over every acknowledged leaf (reading the root signs one), as the auto-signer would have
    // made by now on a slower machine: what the start guard holds the ledger to.
    expect((await fetch(`${d.url}/v1/ledger/root`)).status).toBe(200)
    d.child.kill('SIGKILL')
    await new Promise((r) => d.child.once('exit', r))
  } else expect(await d.stop()).toBe(0)
  return last
}

function flip(file: string, at: number, length = 64): void {
  const fd = openSync(file, 'r+')
  const buf = Buffer.alloc(length)
  readSync(fd, buf, 0, length, at)
  for (let i = 0; i < length; i++) buf[i] = buf[i]! ^ 0xa5
  writeSync(fd, buf, 0, length, at)
  closeSync(fd)
}

async function startOutcome(env: NodeJS.ProcessEnv): Promise<{ started: boolean; text: string; size?: number }> {
  return startDaemonProcess(env).then(
    async (d) => {
      const root = (await (await fetch(`${d.url}/v1/ledger/root`)).json()) as { tree_size: number }
      await d.stop()
      return { started: true, text: d.stdout(), size: root.tree_size }
    },
    (err: Error) => ({ started: false, text: err.message }),
  )
}

it('bytes flipped in the WAL that holds acknowledged decisions: no start on a shorter ledger', async () => {
  const p = place()
  const last = await record(p, 30, true)
  const wal = `${p.db}-wal`
  expect(existsSync(wal)).toBe(true)
  const size = statSync(wal).size
  copyFileSync(wal, `${wal}.orig`)
  flip(wal, Math.floor(size / 2))
  const r = await startOutcome(p.env)
  console.log('WAL corrupted:', JSON.stringify({ acknowledged: last + 1, ...r, text: r.text.slice(0, 400) }))
  expect(r.started, 'started on fewer leaves than it acknowledged').toBe(false)
  // Either guard may speak first: the signed checkpoint in checkpoints.log, or the watermark kept outside $SVC_HOME.
  expect(r.text).toMatch(
    /PE_LEDGER_BROKEN refusing to start: ledger\.db holds \d+ leaves but .*checkpoints\.log has a signed checkpoint|the ledger was cut short, so the daemon does not start: the ledger has \d+ leaves, but this daemon signed a checkpoint of \d+/,
  )
})

it('bytes flipped inside ledger.db: a clear error naming the file, no start', async () => {
  const p = place()
  const last = await record(p, 30, false)
  const size = statSync(p.db).size
  flip(p.db, Math.floor(size / 2), 512)
  const before = readFileSync(p.db)
  const r = await startOutcome(p.env)
  console.log('ledger.db corrupted:', JSON.stringify({ acknowledged: last + 1, ...r, text: r.text.slice(0, 400) }))
  expect(r.started).toBe(false)
  expect(r.text).toContain(`${p.db} (`)
  expect(r.text).toMatch(/\(database disk image is malformed\) is corrupt\. Nothing was repaired or truncated/)
  expect(readFileSync(p.db).equals(before), 'ledger.db is left as found').toBe(true)
})
