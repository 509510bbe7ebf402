/**
 * Outcome rows link to their pre-tool decision through the ledger itself, so a daemon restart between the
 * two keeps `parent_seq`, and repeated deliveries (before or after a restart, or concurrent) add no leaf.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let home: string
let daemon: TestDaemon

const pre = (id: string, command: string) => ({
  session_id: 'c1',
  transcript_path: '/t',
  cwd: '/home/u/app',
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: id,
})
const post = (id: string, command: string, failed = false) => ({
  ...pre(id, command),
  hook_event_name: failed ? 'PostToolUseFailure' : 'PostToolUse',
  ...(failed ? { error: 'Exit code 1', is_interrupt: false } : { tool_response: { stdout: '' } }),
})

async function hook(body: { hook_event_name: string }): Promise<string> {
  const res = await fetch(`${daemon.url}/v1/hooks/claude-code/${body.hook_event_name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(200)
  expect(res.headers.get('x-svc-hook')).toBe('1')
  return res.text()
}

async function restart(): Promise<void> {
  await daemon.stop()
  daemon = await startTestDaemon({ home })
  await daemon.session()
}

beforeAll(async () => {
  home = tempDir('svc-hooks-restart-')
  daemon = await startTestDaemon({ home })
  await daemon.session()
})
afterAll(async () => {
  await daemon.stop()
  rmSync(home, { recursive: true, force: true })
})

describe('outcome rows across a daemon restart', () => {
  it('link to the decision made before the restart and are not recorded twice', async () => {
    await hook(pre('toolu_before', 'ls'))
    const decided = daemon.engine.ledger.size() - 1
    await hook(post('toolu_before', 'ls'))
    const firstOutcome = daemon.engine.ledger.size() - 1
    await hook(pre('toolu_open', 'npm test'))
    const open = daemon.engine.ledger.size() - 1
    expect(daemon.engine.ledger.get(firstOutcome)).toMatchObject({ kind: 'outcome', verdict: 'ran', parentSeq: decided })

    await restart()
    const size = daemon.engine.ledger.size()
    // The same outcome delivered again after the restart: already in the ledger, no second row.
    await hook(post('toolu_before', 'ls'))
    expect(daemon.engine.ledger.size()).toBe(size)
    // Outcomes of a call decided before the restart link to it, whichever outcome it is.
    await hook(post('toolu_open', 'npm test', true))
    await hook(post('toolu_open', 'npm test', true))
    expect(daemon.engine.ledger.size()).toBe(size + 1)
    expect(daemon.engine.ledger.get(size)).toMatchObject({ kind: 'outcome', verdict: 'tool_errored', toolUseId: 'toolu_open', parentSeq: open, ruleId: '' })
    // An outcome with no decision anywhere is recorded once, unlinked, after a `hook_bypassed` control leaf (the tool ran ungated).
    await hook(post('toolu_never_decided', 'ls'))
    await hook(post('toolu_never_decided', 'ls'))
    expect(daemon.engine.ledger.size()).toBe(size + 3)
    expect(daemon.engine.ledger.get(size + 1)).toMatchObject({ kind: 'control', verdict: 'hook_bypassed' })
    expect(daemon.engine.ledger.get(size + 2)).toMatchObject({ kind: 'outcome', toolUseId: 'toolu_never_decided' })
    expect(daemon.engine.ledger.get(size + 2)?.parentSeq).toBeUndefined()
  })

  it('replay the first answer, nudge included, to a duplicate pre-tool delivery that arrives after a restart', async () => {
    const first = await hook(pre('toolu_dup', 'git push --force origin main'))
    expect(JSON.parse(first).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('[svc rule git.force-push] Push to a new branch'),
    })
    await restart()
    const size = daemon.engine.ledger.size()
    expect(await hook(pre('toolu_dup', 'git push --force origin main'))).toBe(first)
    expect(daemon.engine.ledger.size()).toBe(size)
  })

  it('decide concurrent duplicate deliveries once and record one outcome for concurrent duplicates', async () => {
    const size = daemon.engine.ledger.size()
    const answers = await Promise.all([hook(pre('toolu_race', 'rm -rf ~')), hook(pre('toolu_race', 'rm -rf ~')), hook(pre('toolu_race', 'rm -rf ~'))])
    expect(new Set(answers).size).toBe(1)
    expect(daemon.engine.ledger.size()).toBe(size + 1)
    await Promise.all([hook(post('toolu_race', 'rm -rf ~')), hook(post('toolu_race', 'rm -rf ~'))])
    expect(daemon.engine.ledger.size()).toBe(size + 2)
    expect(daemon.engine.ledger.get(size + 1)).toMatchObject({ kind: 'outcome', verdict: 'ran', parentSeq: size })
  })
})
