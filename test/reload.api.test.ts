/** Policy files reload on change; a bad file is reported and the last good version stays in force. */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { waitFor } from './helpers/wait.ts'

let d: TestDaemon
const home = tempDir()
const policyPath = join(home, 'policy.yaml')

beforeAll(async () => {
  writeFileSync(
    policyPath,
    `version: 1
gates:
  - id: local.no-npm-pack
    when: { tool: Bash, command_regex: '^npm pack' }
`,
  )
  d = await startTestDaemon({ home })
})
afterAll(() => d.stop())

const check = async (sid: string, command: string) => (await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'cursor', tool: 'Bash', input: { command } })).body
const view = async () => (await d.request('GET', '/v1/policy/view')).body

describe('policy reload', () => {
  it('picks up an edited file without a restart', async () => {
    const sid = await d.session()
    expect((await check(sid, 'npm pack')).rule_id).toBe('local.no-npm-pack')
    const before = (await view()).policy_hash
    writeFileSync(
      policyPath,
      `version: 1
gates:
  - id: local.no-yarn-pack
    when: { tool: Bash, command_regex: '^yarn pack' }
`,
    )
    await waitFor(async () => (await view()).policy_hash !== before, 'the new policy hash')
    const after = (await view()).policy_hash
    // The reload is on the record with both hashes, and later decisions name the new one.
    const reloads = await waitFor(async () => {
      const leaves = (await d.request('GET', '/v1/ledger/entries?limit=1000')).body.entries.map((e: { leaf: any }) => e.leaf)
      return leaves.filter((l: any) => l.verdict === 'policy_reloaded').length ? leaves : undefined
    }, 'the policy_reloaded entry')
    expect(reloads.filter((l: any) => l.verdict === 'policy_reloaded').at(-1)).toMatchObject({ type: 'control', facts: { policy_hash: after, previous_policy_hash: before } })
    const allowed = await check(sid, 'npm pack')
    expect(allowed.verdict).toBe('allow')
    const leaf = (await d.request('GET', `/v1/ledger/entries?after=${allowed.ledger_seq - 1}&limit=1`)).body.entries[0].leaf
    expect(leaf).toMatchObject({ policy_hash: after, mode: 'firewall' })
    expect((await check(sid, 'yarn pack')).rule_id).toBe('local.no-yarn-pack')
  })

  it.each([
    ['invalid YAML', 'version: 1\ngates:\n  - id: x\n    when: { tool: Bash\n', /invalid YAML/],
    [
      'a catastrophic-looking regex RE2 cannot compile',
      "version: 1\ngates:\n  - id: local.bad-regex\n    when: { tool: Bash, command_regex: '(a+)+$(?=x)' }\n",
      /local\.bad-regex.*command_regex.*unsupported Perl syntax/,
    ],
    ['an unknown predicate', 'version: 1\ngates:\n  - id: local.typo\n    when: { tol: Bash }\n', /local\.typo.*unknown predicate "tol"/],
    ['an unknown field', 'version: 1\ngates:\n  - id: local.x\n    when: { tool: Bash }\n    on_hti: deny\n', /unknown field "on_hti"/],
    ['a duplicate key', 'version: 1\nversion: 1\ngates: []\n', /invalid YAML/],
  ])('rejects %s, keeps the last good version and reports file, line and reason', async (_name, text, message) => {
    const sid = await d.session()
    const good = await view()
    writeFileSync(policyPath, text)
    const bad = await waitFor(async () => {
      const v = await view()
      return v.files.find((f: { path: string; status: string }) => f.path === policyPath && f.status === 'error') ? v : undefined
    }, 'the file error to show')
    const file = bad.files.find((f: { path: string }) => f.path === policyPath)
    expect(bad.status).toBe('degraded')
    expect(file.error.message).toMatch(message)
    expect(file.error.loc.file).toBe(policyPath)
    expect(file.error.loc.line).toEqual(expect.any(Number))
    expect(bad.policy_hash).toBe(good.policy_hash)
    expect((await check(sid, 'yarn pack')).rule_id).toBe('local.no-yarn-pack')
    // Restore a good file for the next case.
    writeFileSync(
      policyPath,
      `version: 1
gates:
  - id: local.no-yarn-pack
    when: { tool: Bash, command_regex: '^yarn pack' }
`,
    )
    await waitFor(async () => (await view()).status === 'ok', 'the restored file')
  })
})

describe('boot', () => {
  it('refuses to start on an invalid policy, naming file, line and gate', async () => {
    const h = tempDir()
    writeFileSync(join(h, 'policy.yaml'), "version: 1\ngates:\n  - id: boot.bad\n    when: { command_regex: '(' }\n")
    await expect(startTestDaemon({ home: h })).rejects.toThrow(/boot\.bad.*missing closing \)/)
  })
})
