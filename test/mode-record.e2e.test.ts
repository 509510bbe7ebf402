/**
 * The daemon mode is recorded, not merely stored: each change is a `mode_changed` ledger entry (who, from,
 * to, when), the state.db row is sealed with the seq of that entry, and a row changed with `sqlite3`
 * (here node:sqlite, the same library) makes the next start refuse with a reason instead of running in
 * monitor mode. Decision leaves name the policy hash and the mode that decided them.
 */
import { DatabaseSync } from 'node:sqlite'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

const PASSWORD = 'correct horse battery'
let home: string
let daemon: TestDaemon | undefined

afterEach(async () => {
  await daemon?.stop()
  daemon = undefined
  rmSync(home, { recursive: true, force: true })
})

/** Changes the mode as the operator (one login per daemon: each login is a scrypt verification). */
async function setMode(d: TestDaemon, mode: string) {
  return d.request('PATCH', '/v1/mode', { mode }, { authorization: `Bearer ${await d.operatorToken()}` })
}

function sql(statement: string): void {
  const db = new DatabaseSync(join(home, 'state.db'))
  db.exec(statement)
  db.close()
}

async function leaves(d: TestDaemon): Promise<any[]> {
  return (await d.request('GET', '/v1/ledger/entries?limit=1000')).body.entries.map((e: { leaf: unknown }) => e.leaf)
}

describe('daemon mode', () => {
  it('is a ledger entry per change and survives a restart through its sealed row', async () => {
    home = tempDir('svc-mode-')
    daemon = await startTestDaemon({ home })
    const changed = await setMode(daemon, 'monitor')
    expect(changed.body).toMatchObject({ mode: 'monitor', previous: 'firewall' })
    const leaf = (await leaves(daemon)).find((l) => l.seq === changed.body.ledger_seq)
    expect(leaf).toMatchObject({ type: 'control', verdict: 'mode_changed', facts: { from: 'firewall', to: 'monitor', who: expect.stringMatching(/^operator:[0-9a-f]{12}$/) } })
    expect(leaf.ts_ms).toBeGreaterThan(0)
    await daemon.stop()
    daemon = await startTestDaemon({ home })
    expect((await daemon.request('GET', '/v1/mode')).body.mode).toBe('monitor')

    const session = await daemon.session()
    const check = await daemon.request('POST', '/v1/gates/check', { session_id: session, source: 'claude-code', tool: 'Bash', input: { command: 'rm -rf /' } })
    const decision = (await leaves(daemon)).find((l) => l.seq === check.body.ledger_seq)
    const { body: policy } = await daemon.request('GET', '/v1/policy/view')
    expect(decision).toMatchObject({ type: 'decision', mode: 'monitor', policy_hash: policy.policy_hash })
    expect(policy.policy_hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('refuses to start when state.db was edited to monitor behind the daemon (sealed row changed)', async () => {
    home = tempDir('svc-mode-')
    daemon = await startTestDaemon({ home })
    await setMode(daemon, 'monitor')
    await setMode(daemon, 'firewall')
    await daemon.stop()
    daemon = undefined
    sql("UPDATE settings SET value = 'monitor' WHERE key = 'mode'")
    await expect(startTestDaemon({ home })).rejects.toThrow(/does not carry a valid seal: it was changed outside svc/)
    const cli = await runCli(['daemon', '--port', '0', '--home', home], { SVC_ADMIN_PASSWORD: PASSWORD })
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toMatch(/mode row \("monitor", ledger seq \d+\) does not carry a valid seal/)
  })

  it('refuses a mode row inserted where the daemon never changed its mode, and one replayed from earlier', async () => {
    home = tempDir('svc-mode-')
    daemon = await startTestDaemon({ home })
    await daemon.stop()
    daemon = undefined
    sql("INSERT INTO settings (key, value) VALUES ('mode', 'monitor')")
    await expect(startTestDaemon({ home })).rejects.toThrow(/says mode "monitor" without the daemon's seal/)

    sql("DELETE FROM settings WHERE key = 'mode'")
    daemon = await startTestDaemon({ home })
    expect((await daemon.request('GET', '/v1/mode')).body.mode).toBe('firewall')
    await setMode(daemon, 'monitor')
    const db = new DatabaseSync(join(home, 'state.db'))
    const sealedMonitor = db.prepare("SELECT value FROM settings WHERE key = 'mode_seal'").get() as { value: string }
    db.close()
    await setMode(daemon, 'firewall')
    await daemon.stop()
    daemon = undefined
    // A valid seal from an earlier change, replayed: the ledger's latest change says otherwise.
    sql(`UPDATE settings SET value = 'monitor' WHERE key = 'mode'; UPDATE settings SET value = '${sealedMonitor.value}' WHERE key = 'mode_seal'`)
    await expect(startTestDaemon({ home })).rejects.toThrow(/but the ledger's latest mode entry says "firewall"/)
  })
})
