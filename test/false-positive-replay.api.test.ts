/**
 * Replay of a drafted replacement over recorded decisions (POST /v1/false-positives/cases/{seq}/replay) through
 * the real daemon: a past deny of the same command is listed as now allowed, an unrelated deny of the same gate
 * and another gate's deny are not, nothing is written or recorded, a too-broad replacement is refused as
 * validate refuses it, and `limit` bounds the calls replayed.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from './helpers/run-cli.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let d: TestDaemon
let sid: string
let repo: string

const check = (command: string) => d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command }, cwd: repo })

beforeAll(async () => {
  d = await startTestDaemon()
  sid = await d.session()
  repo = tempDir('svc-fp-replay-')
  mkdirSync(join(repo, '.git'))
})
afterAll(async () => d?.stop())

describe('false-positive replay', { timeout: 120_000 }, () => {
  it('lists the past denies a replacement would now allow, and only those', async () => {
    const earlier = await check('git reset --hard HEAD~1')
    const unrelatedSameGate = await check('git reset --hard origin/main')
    const otherGate = await check('rm -rf /')
    const allowed = await check('ls -la')
    const denied = await check('git reset --hard HEAD~1')
    for (const r of [earlier, unrelatedSameGate, denied]) expect(r.body).toMatchObject({ verdict: 'deny', rule_id: 'git.reset-hard' })
    expect(otherGate.body.verdict).toBe('deny')
    expect(allowed.body.verdict).toBe('allow')
    const seq = denied.body.ledger_seq as number
    const bundle = (await d.request('GET', `/v1/false-positives/cases/${seq}`)).body
    const draft = (await d.request('GET', `/v1/false-positives/cases/${seq}/draft`)).body
    const size = (await d.request('GET', '/v1/ledger/root')).body.tree_size

    const replay = await d.request('POST', `/v1/false-positives/cases/${seq}/replay`, { bundle, replacement_yaml: draft.replacement_yaml, target: 'repo' })
    expect(replay.status).toBe(200)
    expect(replay.body).toMatchObject({ seq, replacement_id: `git.reset-hard.fp-${seq}`, now_denied: [] })
    const listed = replay.body.now_allowed.map((r: { seq: number }) => r.seq)
    expect(listed).toEqual([seq, earlier.body.ledger_seq])
    expect(listed).not.toContain(unrelatedSameGate.body.ledger_seq)
    expect(listed).not.toContain(otherGate.body.ledger_seq)
    expect(replay.body.now_allowed[0]).toMatchObject({
      tool: 'Bash',
      recorded: 'deny',
      now: 'deny',
      candidate: 'allow',
      rule_id: 'git.reset-hard',
      input: { command: 'git reset --hard HEAD~1' },
    })
    expect(replay.body.replayed).toBeGreaterThanOrEqual(5)
    // Nothing written, nothing recorded.
    expect(existsSync(join(repo, '.svc.yaml'))).toBe(false)
    expect((await d.request('GET', '/v1/ledger/root')).body.tree_size).toBe(size)

    const bounded = await d.request('POST', `/v1/false-positives/cases/${seq}/replay?limit=1`, { bundle, replacement_yaml: draft.replacement_yaml, target: 'repo' })
    expect(bounded.body).toMatchObject({ replayed: 1, now_allowed: [expect.objectContaining({ seq })] })

    const broad = await d.request('POST', `/v1/false-positives/cases/${seq}/replay`, {
      bundle,
      replacement_yaml: 'id: git.reset-hard.never\nwhen: { tool: Bash, command_regex: "^never-matches$" }\n',
      target: 'repo',
    })
    expect(broad.body).toMatchObject({ status: 422, reason: 'too_broad' })
    // Examples in the `command:` shorthand the schema allows (once a 500 on validate, apply and replay).
    const examples = [{ command: 'git reset --hard HEAD~7', expect: 'deny', rule: 'git.reset-hard' }]
    const validated = await d.request('POST', '/v1/false-positives/validate', { bundle, replacement_yaml: draft.replacement_yaml, target: 'repo', examples })
    expect(validated.status, JSON.stringify(validated.body)).toBe(200)
    expect(validated.body.examples_checked).toBeGreaterThanOrEqual(1)
    const replayed = await d.request('POST', `/v1/false-positives/cases/${seq}/replay`, { bundle, replacement_yaml: draft.replacement_yaml, target: 'repo', examples })
    expect(replayed.status).toBe(200)
    const missing = await d.request('POST', '/v1/false-positives/validate', { bundle, replacement_yaml: draft.replacement_yaml, examples: [{ expect: 'deny' }] })
    expect(missing.status).toBe(400)
    const wrongCase = await d.request('POST', `/v1/false-positives/cases/${earlier.body.ledger_seq}/replay`, { bundle, replacement_yaml: draft.replacement_yaml })
    expect(wrongCase.body).toMatchObject({ status: 422, reason: 'invalid_bundle' })
  })

  it('svc false-positive replay prints the past denies a case directory’s replacement would allow', async () => {
    const denied = await check('git reset --hard HEAD~2')
    const seq = denied.body.ledger_seq as number
    const env = { SVC_URL: d.url, HOME: tempDir() }
    const dir = join(tempDir(), 'case')
    expect((await runCli(['false-positive', String(seq), '--target', 'repo', '--out', dir], env)).code).toBe(0)
    const out = await runCli(['false-positive', 'replay', dir], env)
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    expect(out.stdout).toContain(`seq ${seq}`)
    expect(out.stdout).toMatch(/1 past deny\(s\) would now be allowed/)
  })
})
