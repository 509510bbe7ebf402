/**
 * A locked (or full) state.db must not stop the daemon: the once-a-second counter flush fails, is logged
 * and retried, checks and hooks keep answering, a mode change (which needs state.db) is a 503 that changes
 * nothing, and everything recovers when the lock goes. Through the real `svc daemon` in a child process,
 * with the lock held by another SQLite connection exactly as a second process would hold it.
 */
import { DatabaseSync } from 'node:sqlite'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from './helpers/daemon.ts'
import { spawnDaemon, type ChildDaemon } from './helpers/child-daemon.ts'
import { waitFor } from './helpers/wait.ts'

const PASSWORD = 'operator-password'
let home: string
let daemon: ChildDaemon

async function call(method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

beforeAll(async () => {
  home = tempDir('svc-faults-')
  daemon = await spawnDaemon(home, { SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: PASSWORD })
})
afterAll(async () => {
  await daemon.stop()
  rmSync(home, { recursive: true, force: true })
})

describe('a locked state.db', () => {
  it('keeps checks and hooks answering, refuses a mode change with 503, and recovers when the lock goes', async () => {
    const token = (await call('POST', '/v1/auth/login', { password: PASSWORD })).body.token
    const session = (await call('POST', '/v1/sessions/create', { signer: 'unattested' }, token)).body.session_id
    const lock = new DatabaseSync(join(home, 'state.db'))
    lock.exec('BEGIN EXCLUSIVE')
    try {
      const before = (await call('GET', '/v1/ledger/root')).body.tree_size
      for (let i = 0; i < 3; i++) {
        const check = await call('POST', '/v1/gates/check', { session_id: session, source: 'claude-code', tool: 'Bash', input: { command: 'rm -rf /' } })
        expect(check.body.verdict).toBe('deny')
        // Several flush ticks pass with the counters dirty and the file locked.
        await new Promise((r) => setTimeout(r, 700))
      }
      const hook = await call('POST', '/v1/hooks/claude-code/PreToolUse', {
        hook_event_name: 'PreToolUse',
        session_id: 'x',
        transcript_path: '/tmp/t',
        cwd: '/tmp',
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf /' },
        tool_use_id: 'toolu_locked',
      })
      expect(hook.status).toBe(200)
      expect(JSON.stringify(hook.body)).toContain('"permissionDecision":"deny"')
      const mode = await call('PATCH', '/v1/mode', { mode: 'monitor' }, token)
      expect(mode.status).toBe(503)
      expect(mode.body).toMatchObject({ code: 'unavailable', detail: expect.stringMatching(/storage unavailable.*locked/) })
      expect((await call('GET', '/v1/mode')).body.mode).toBe('firewall')
      // The refused change left no mode entry; the checks and the hook are on the record.
      const entries = (await call('GET', `/v1/ledger/entries?after=${before - 1}`)).body.entries
      expect(entries.map((e: any) => e.leaf.verdict)).not.toContain('mode_changed')
      expect(entries.length).toBe(4)
      expect(daemon.alive()).toBe(true)
      expect(daemon.logs()).toContain('gate counters could not be saved')
    } finally {
      lock.exec('ROLLBACK')
      lock.close()
    }
    const saved = await waitFor(() => {
      const db = new DatabaseSync(join(home, 'state.db'), { readOnly: true })
      const row = db.prepare('SELECT SUM(matched) AS n FROM gate_stats').get() as { n: number | null }
      db.close()
      return (row.n ?? 0) >= 3 ? row.n : undefined
    }, 'the counters to be flushed after the lock went')
    expect(saved).toBeGreaterThanOrEqual(3)
    expect((await call('PATCH', '/v1/mode', { mode: 'monitor' }, token)).status).toBe(200)
    expect(daemon.alive()).toBe(true)
  })
})
