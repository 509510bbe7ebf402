/**
 * The record cannot be quietly rewritten or lost: through the real daemon (`svc daemon` in a child process
 * over a throwaway $SVC_HOME), real SQLite files and the real `svc ledger verify`. Unsigned rewrites, truncation
 * together with checkpoint rows, a deleted or emptied ledger.db, a deleted $SVC_HOME (before a start and while
 * running), a full disk and a locked database.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import pino from 'pino'
import { startSvcDaemon } from '../cli/start-daemon.ts'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { CompactRange } from '../core/ledger/compact-range.ts'
import { canonicalJson } from '../core/ledger/jcs.ts'
import { ledgerMarkerPath } from '../core/ledger/ledger-guard.ts'
import { hashLeaf } from '../core/ledger/merkle.ts'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess, type DaemonProcess } from './helpers/daemon-process.ts'
import { runCli } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'

// Each case starts one to three real daemons and runs the real CLI: allow for a busy machine. The cases share
// nothing but the recorded ledger (each tampers with its own copy), so they run side by side, on both cores.
vi.setConfig({ testTimeout: 180_000 })

const roots: string[] = []
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

/** A throwaway $SVC_HOME with a separate $HOME (where the ledger marker lives, outside $SVC_HOME). */
function place(root = tempDir('svc-record-')) {
  roots.push(root)
  const home = join(root, 'svc-home')
  const user = join(root, 'user')
  mkdirSync(user, { recursive: true })
  const env = { PATH: process.env.PATH, HOME: user, SVC_HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', SVC_LOG_LEVEL: 'info' }
  return { root, home, env, db: join(home, 'ledger.db'), log: join(home, 'checkpoints.log') }
}
type Place = ReturnType<typeof place>

async function signedSession(p: Place, d: DaemonProcess): Promise<string> {
  const created = await d.post('/v1/sessions/create', mintSession(unlockHostKey('software', { home: p.home, env: p.env })))
  expect(created.status).toBe(201)
  return created.body.session_id as string
}

const check = (d: DaemonProcess, sessionId: string, command: string) =>
  d.post('/v1/gates/check', { session_id: sessionId, source: 'claude-code', tool: 'Bash', input: { command } })
const hook = (d: DaemonProcess) =>
  d.post('/v1/hooks/claude-code/PreToolUse', {
    session_id: 's',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'echo hook' },
    tool_use_id: `toolu_${Math.random()}`,
    cwd: '/tmp',
  })

/** A ledger with a signed session, an allow and a deny, closed by a clean shutdown (which signs a last checkpoint). */
async function record(p: Place): Promise<Place & { size: number }> {
  const d = await startDaemonProcess(p.env)
  const sid = await signedSession(p, d)
  expect((await check(d, sid, 'echo hi')).body.verdict).toBe('allow')
  const denied = await check(d, sid, 'rm -rf ~')
  expect(denied.body.verdict).toBe('deny')
  expect(await d.stop()).toBe(0)
  return { ...p, size: denied.body.ledger_seq + 1 }
}

let original: Promise<Place & { size: number }> | undefined
/**
 * The recorded ledger, made by one daemon run per file; each test tampers with its own copy in a new place
 * (files, modes and the marker outside $SVC_HOME, which is named after the home's path, moved to the copy's).
 */
async function recorded(): Promise<Place & { size: number }> {
  original ??= record(place())
  const made = await original
  const p = place()
  rmSync(p.root, { recursive: true })
  execFileSync('cp', ['-a', made.root, p.root])
  const copiedMarker = ledgerMarkerPath({ HOME: join(p.root, 'user') }, made.home)!
  renameSync(copiedMarker, ledgerMarkerPath(p.env, p.home)!)
  const copiedMark = copiedMarker.replace(/\.json$/, '.watermark.json')
  if (existsSync(copiedMark)) renameSync(copiedMark, ledgerMarkerPath(p.env, p.home)!.replace(/\.json$/, '.watermark.json'))
  return { ...p, size: made.size }
}

/** Opens a ledger file the way an attacker with file access (and no key) would: triggers gone. */
function openForTamper(db: string): DatabaseSync {
  const conn = new DatabaseSync(db)
  for (const t of ['leaves', 'nodes', 'checkpoints']) conn.exec(`DROP TRIGGER IF EXISTS ${t}_no_update; DROP TRIGGER IF EXISTS ${t}_no_delete;`)
  return conn
}

/** Recomputes every leaf hash and tree node from the leaf bodies, so the tree itself is consistent again. */
function rebuildTree(conn: DatabaseSync): void {
  conn.exec('DELETE FROM nodes')
  const range = new CompactRange()
  const insert = conn.prepare('INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)')
  for (const row of conn.prepare('SELECT seq, body FROM leaves ORDER BY seq').all() as { seq: number; body: string }[]) {
    const h = hashLeaf(Buffer.from(row.body))
    conn.prepare('UPDATE leaves SET leaf_hash = ? WHERE seq = ?').run(h, row.seq)
    for (const n of range.append(h)) insert.run(n.level, n.idx, n.hash)
  }
}

/** Rewrites leaf `seq` (unsigned, by someone without any key) and rebuilds the tree. */
function rewriteUnsigned(db: string, seq: number, change: Record<string, unknown>): void {
  const conn = openForTamper(db)
  const row = conn.prepare('SELECT body FROM leaves WHERE seq = ?').get(seq) as { body: string }
  const leaf = { ...JSON.parse(row.body), ...change, signer: 'none' }
  conn.prepare('UPDATE leaves SET body = ?, sig = NULL, verdict = ? WHERE seq = ?').run(canonicalJson(leaf), leaf.verdict, seq)
  rebuildTree(conn)
  conn.close()
}

const verify = (p: Place, ...args: string[]) => runCli(['ledger', 'verify', ...args], p.env)

describe.concurrent('unsigned leaves', () => {
  it('an untouched ledger verifies, every leaf covered by a checkpoint the daemon signed by itself', async () => {
    const p = await recorded()
    const r = await verify(p, '--json')
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ ok: true, treeSize: p.size, uncovered: null })
    expect(report.counts.logged).toBeGreaterThanOrEqual(1)
  })

  it.each([
    [
      'a signed deny rewritten into an unsigned allow',
      { verdict: 'allow', rule_id: '', reason: 'ok' },
      /unsigned decision leaf with verdict allow: only refusals, outcome rows and control records may be unsigned/,
    ],
    ['a signed deny re-recorded unsigned while its session could sign', {}, /unsigned refusal for session ses_\w+, whose certificate was valid/],
  ])('%s fails verification, even with every checkpoint removed', async (_what, change, message) => {
    const p = await recorded()
    rewriteUnsigned(p.db, p.size - 1, change)
    const conn = openForTamper(p.db)
    conn.exec('DELETE FROM checkpoints')
    conn.close()
    unlinkSync(p.log)
    const r = await verify(p)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(message)
    expect(r.stdout).toMatch(new RegExp(`not covered by a signed checkpoint: seq 0\\.\\.${p.size - 1}`))
  })
})

describe.concurrent('the session idle window', () => {
  it('a short SVC_SESSION_IDLE: the refusals it records unsigned verify, against the window the daemon used', async () => {
    const p = place()
    const d = await startDaemonProcess({ ...p.env, SVC_SESSION_IDLE: '2s' })
    const sid = await signedSession(p, d)
    expect((await check(d, sid, 'echo hi')).body.verdict).toBe('allow')
    await new Promise((r) => setTimeout(r, 2500))
    const idle = await check(d, sid, 'echo after the idle window')
    expect(idle.body.verdict).toBe('deny')
    expect(await d.stop()).toBe(0)
    const leaf = JSON.parse(
      String((new DatabaseSync(p.db, { readOnly: true }).prepare('SELECT body FROM leaves WHERE seq = ?').get(idle.body.ledger_seq) as { body: string }).body),
    )
    expect(leaf).toMatchObject({ signer: 'none', session_id: sid })
    const r = await verify(p)
    expect(r.code, r.stderr).toBe(0)
  })
})

describe.concurrent('checkpoints outside ledger.db', () => {
  it('are signed while leaves arrive, without anyone asking for the root, and appended to checkpoints.log', async () => {
    const p = place()
    // Every 2 s by default; a shorter interval (never a longer one) spares the wait.
    const d = await startDaemonProcess({ ...p.env, SVC_CHECKPOINT_INTERVAL: '100ms' })
    const sid = await signedSession(p, d)
    const seq = (await check(d, sid, 'echo one')).body.ledger_seq as number
    const entries = await waitFor(
      () => {
        const lines = existsSync(p.log)
          ? readFileSync(p.log, 'utf8')
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l))
          : []
        return lines.at(-1)?.tree_size === seq + 1 ? lines : undefined
      },
      'a checkpoint of the new leaf in checkpoints.log',
      30_000,
    )
    expect(entries.at(-1)).toMatchObject({ v: 1, tree_size: seq + 1, signer_kid: sid, note: expect.stringContaining(`\n${seq + 1}\n`) })
    expect(await d.stop()).toBe(0)
  })

  it('come at least every 2 s: a longer SVC_CHECKPOINT_INTERVAL stops the daemon from starting', async () => {
    const p = place()
    for (const bad of ['5s', '0ms', 'soon']) {
      await expect(startSvcDaemon({ home: p.home, port: 0, env: { ...p.env, SVC_CHECKPOINT_INTERVAL: bad }, log: pino({ level: 'silent' }) })).rejects.toThrow(
        `SVC_CHECKPOINT_INTERVAL=${bad}: `,
      )
    }
  })

  it('truncating the leaves together with their checkpoint rows is caught by checkpoints.log, by verify and at start', async () => {
    const p = await recorded()
    const conn = openForTamper(p.db)
    conn.exec(`DELETE FROM leaves WHERE seq >= ${p.size - 2}; DELETE FROM checkpoints;`)
    rebuildTree(conn)
    conn.close()
    const r = await verify(p)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(new RegExp(`checkpoints\\.log: checkpoint at size ${p.size}: the ledger has only ${p.size - 2} leaves`))
    const start = await runCli(['daemon', '--port', '0'], p.env)
    expect(start.code).not.toBe(0)
    expect(start.stderr).toMatch(
      new RegExp(`refusing to start: ledger.db holds ${p.size - 2} leaves but .*checkpoints.log has a signed checkpoint of this ledger at size ${p.size}`),
    )
  })
})

describe.concurrent('a clean cut of the tail', () => {
  const logLines = (p: Place) =>
    readFileSync(p.log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tree_size: number })

  it('back to an earlier checkpoint, with the checkpoint rows and the log’s tail, is refused at start and FAILS verify (the watermark outside $SVC_HOME)', async () => {
    const p = place()
    const d = await startDaemonProcess({ ...p.env, SVC_CHECKPOINT_INTERVAL: '100ms' })
    const sid = await signedSession(p, d)
    const cut = ((await check(d, sid, 'echo kept')).body.ledger_seq as number) + 1
    await waitFor(() => logLines(p).some((l) => l.tree_size === cut), 'a checkpoint at the cut', 30_000)
    for (const c of ['echo later', 'rm -rf ~', 'echo last']) await check(d, sid, c)
    const mark = ledgerMarkerPath(p.env, p.home)!.replace(/\.json$/, '.watermark.json')
    await waitFor(() => existsSync(mark) && JSON.parse(readFileSync(mark, 'utf8')).tree_size > cut, 'the watermark past the cut', 30_000)
    expect(await d.stop()).toBe(0)
    // The cut: every leaf after it, every checkpoint row past it, the log's lines past it; the tree rebuilt.
    const conn = openForTamper(p.db)
    conn.exec(`DELETE FROM leaves WHERE seq >= ${cut}; DELETE FROM checkpoints WHERE tree_size > ${cut};`)
    rebuildTree(conn)
    conn.close()
    writeFileSync(
      p.log,
      `${readFileSync(p.log, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => JSON.parse(l).tree_size <= cut)
        .join('\n')}\n`,
    )
    const r = await verify(p)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(new RegExp(`the ledger has ${cut} leaves, but this daemon signed a checkpoint of \\d+ \\(.*watermark\\.json\\): its tail was cut`))
    const start = await runCli(['daemon', '--port', '0'], p.env)
    expect(start.code).not.toBe(0)
    expect(start.stderr).toMatch(/the ledger was cut short, so the daemon does not start/)
  })

  it('an honest ledger no witness or off-host copy holds verifies, with a plain WARNING naming that', async () => {
    const p = await recorded()
    const r = await verify(p, '--json')
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).outside).toMatchObject({ problems: [], coverage: { witnessed: 0, shipped: 0, uncovered: { from: 0, to: p.size - 1 } } })
    const plain = await verify(p)
    expect(plain.stdout).toContain('WARNING: no witness cosignature and no off-host copy (OTLP export) covers this ledger')
  })
})

describe.concurrent('no silent new ledger', () => {
  it('a deleted ledger.db stops the daemon from starting until --new-ledger, whose first leaf names what it replaced', async () => {
    const p = await recorded()
    const last = JSON.parse(readFileSync(p.log, 'utf8').trim().split('\n').at(-1)!)
    for (const f of ['', '-wal', '-shm']) rmSync(p.db + f, { force: true })
    const refused = await runCli(['daemon', '--port', '0'], p.env)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(
      /refusing to start: ledger.db is empty or new, but .*checkpoints.log ends with a signed checkpoint of ledger svc\.local\/\w+ .*svc daemon --new-ledger/,
    )
    const d = await startDaemonProcess(p.env, ['--new-ledger'])
    const first = (await (await fetch(`${d.url}/v1/ledger/entries?after=-1&limit=1`)).json()) as { entries: { leaf: Record<string, unknown> }[] }
    expect(first.entries[0]!.leaf).toMatchObject({
      type: 'ledger',
      verdict: 'ledger_created',
      signer: 'none',
      replaces: { origin: last.origin, tree_size: last.tree_size, root: last.root },
    })
    expect(await d.stop()).toBe(0)
    const again = await startDaemonProcess(p.env)
    expect(await again.stop()).toBe(0)
    const r = await verify(p)
    expect(r.code, r.stderr).toBe(0)
  })

  it('an emptied ledger.db is refused the same way', async () => {
    const p = await recorded()
    for (const f of ['-wal', '-shm']) rmSync(p.db + f, { force: true })
    writeFileSync(p.db, '')
    const refused = await runCli(['daemon', '--port', '0'], p.env)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/refusing to start: .*--new-ledger/)
  })

  it('a deleted $SVC_HOME is noticed through the marker outside it', async () => {
    const p = await recorded()
    rmSync(p.home, { recursive: true })
    const refused = await runCli(['daemon', '--port', '0'], p.env)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/refusing to start: ledger.db is empty or new, but .*\.local\/state\/svc\/ledgers\/\w+\.json records ledger svc\.local\/\w+ for this home/)
    const d = await startDaemonProcess(p.env, ['--new-ledger'])
    expect(await d.stop()).toBe(0)
  })
})

describe.concurrent('faults on the ledger path: fail closed, stay up, recover, lose nothing acknowledged', () => {
  /** Keeps checking until `until` holds for an answer (at most `tries` checks); returns the acknowledged seqs. */
  async function checksUntil(d: DaemonProcess, sid: string, until: (status: number) => boolean, tries: number, acked: number[]): Promise<{ status: number; body: any }> {
    for (let i = 0; i < tries; i++) {
      const r = await check(d, sid, `echo fault ${i}`)
      if (r.status === 200) acked.push(r.body.ledger_seq)
      if (until(r.status)) return r
    }
    throw new Error('condition never reached')
  }

  async function expectAllAcknowledged(p: Place, acked: number[]): Promise<void> {
    const r = await verify(p, '--json')
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).treeSize).toBeGreaterThan(Math.max(...acked))
  }

  it('a locked database: checks answer 503, hooks deny, then it recovers', async () => {
    const p = place()
    const d = await startDaemonProcess(p.env)
    const sid = await signedSession(p, d)
    const acked: number[] = []
    await checksUntil(d, sid, (s) => s === 200, 1, acked)
    const locker = new DatabaseSync(p.db)
    locker.exec('PRAGMA busy_timeout = 5000; BEGIN EXCLUSIVE')
    const failed = await checksUntil(d, sid, (s) => s !== 200, 5, acked)
    expect(failed).toMatchObject({ status: 503, body: { code: 'unavailable', engine_code: 'PE_LEDGER_BROKEN', detail: expect.stringMatching(/ledger write failed.*locked/) } })
    expect((await hook(d)).body.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' })
    locker.exec('ROLLBACK')
    locker.close()
    await checksUntil(d, sid, (s) => s === 200, 3, acked)
    expect(d.child.exitCode).toBeNull()
    expect(await d.stop()).toBe(0)
    await expectAllAcknowledged(p, acked)
  })

  const tmpfs = tempDir('svc-tmpfs-')
  roots.push(tmpfs)
  let mounted = false
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', tmpfs], { stdio: 'ignore' })
    mounted = true
  } catch {
    // not root (or no tmpfs): the disk-full case cannot be staged here
  }
  afterAll(() => {
    if (mounted) execFileSync('umount', ['-l', tmpfs])
  })

  it.skipIf(!mounted)('a full disk: checks answer 503, hooks deny, the daemon lives, and it recovers once space is freed', async () => {
    const p = place(tmpfs)
    const d = await startDaemonProcess(p.env)
    const sid = await signedSession(p, d)
    const acked: number[] = []
    await checksUntil(d, sid, (s) => s === 200, 1, acked)
    const filler = join(tmpfs, 'filler')
    try {
      writeFileSync(filler, Buffer.alloc(16 * 1024 * 1024))
    } catch {
      // ENOSPC: the disk is now full
    }
    const failed = await checksUntil(d, sid, (s) => s !== 200, 2000, acked)
    expect(failed).toMatchObject({ status: 503, body: { engine_code: 'PE_LEDGER_BROKEN', detail: expect.stringMatching(/ledger write failed.*(full|disk)/i) } })
    expect((await hook(d)).body.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' })
    expect(d.child.exitCode).toBeNull()
    unlinkSync(filler)
    await checksUntil(d, sid, (s) => s === 200, 3, acked)
    expect(await d.stop()).toBe(0)
    await expectAllAcknowledged(p, acked)
  })

  it('a $SVC_HOME removed while running: appends fail closed instead of writing into unlinked files', async () => {
    const p = place()
    const d = await startDaemonProcess(p.env)
    const sid = await signedSession(p, d)
    expect((await check(d, sid, 'echo before')).status).toBe(200)
    rmSync(p.home, { recursive: true })
    const after = await check(d, sid, 'echo after')
    expect(after).toMatchObject({ status: 503, body: { engine_code: 'PE_LEDGER_BROKEN', detail: expect.stringMatching(/was removed while the daemon ran/) } })
    expect((await hook(d)).body.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' })
    expect(d.child.exitCode).toBeNull()
    expect(existsSync(p.db)).toBe(false)
    await d.stop()
  })
})

describe.concurrent('the copy of a ledger elsewhere', () => {
  it('verifies against its own checkpoint log when told where it is', async () => {
    const p = await recorded()
    const copy = join(p.root, 'copy.db')
    copyFileSync(p.db, copy)
    const r = await runCli(['ledger', 'verify', '--db', copy, '--checkpoint-log', p.log], p.env)
    expect(r.code, r.stderr).toBe(0)
  })
})
