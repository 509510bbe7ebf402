/**
 * Tools for rule authors and the record of what the agent did: `svc policy test` (fixtures of every shipped
 * pack; a failing fixture gives a diff and a non-zero exit), `svc policy lint`, `svc explain --harness` and
 * `--exit-code`, the one redaction function, and `svc ledger verify` checking every stored call.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { main } from '../cli/main.ts'
import type { CliIo } from '../cli/io.ts'
import { PROJECT_ROOT, SHIPPED_POLICIES_DIR } from '../cli/paths.ts'
import { redactText, redactValue } from '../redaction/index.ts'
import { startTestDaemon, tempDir } from './helpers/daemon.ts'
import { waitFor } from './helpers/wait.ts'
import { compileCache } from './helpers/child-env.ts'

async function svc(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    out: (t) => (stdout += `${t}\n`),
    err: (t) => (stderr += `${t}\n`),
    env: { SVC_HOME: tempDir(), SVC_USER_HOME: tempDir(), ...env },
    readStdin: async () => '',
    ask: async () => undefined,
    interactive: false,
  }
  const code = await main(args, io)
  return { code, stdout, stderr }
}

describe('svc policy test', () => {
  it('runs every shipped pack’s fixtures (CI), and every built-in gate has a must-deny fixture and its pack must-allow ones', async () => {
    const r = await svc(['policy', 'test', SHIPPED_POLICIES_DIR])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^(\d+) of \1 fixtures passed/m)
    const packs = readdirSync(SHIPPED_POLICIES_DIR)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => f.replace(/\.yaml$/, ''))
    expect(packs.length).toBeGreaterThanOrEqual(19)
    for (const pack of packs) {
      const ids = (parse(readFileSync(join(SHIPPED_POLICIES_DIR, `${pack}.yaml`), 'utf8')) as { gates: { id: string }[] }).gates.map((g) => g.id)
      const fixtures = (parse(readFileSync(join(SHIPPED_POLICIES_DIR, 'fixtures', `${pack}.yaml`), 'utf8')) as { fixtures: { expect: string; rule?: string }[] }).fixtures
      // Fires only on a script already on disk (a fixture call has no files): covered by the shell-analysis tests.
      const onDiskOnly = new Set(['analysis.unanalysable-script'])
      for (const id of ids)
        if (!onDiskOnly.has(id))
          expect(
            fixtures.some((f) => f.expect !== 'allow' && f.rule === id),
            id,
          ).toBe(true)
      expect(
        fixtures.some((f) => f.expect === 'allow'),
        pack,
      ).toBe(true)
    }
  }, 120_000)

  it('prints a diff per failing fixture and exits non-zero; a registry rule folder carries its own fixtures', async () => {
    const rule = join(tempDir(), 'no-make-deploy')
    mkdirSync(rule)
    writeFileSync(join(rule, 'rule.yaml'), 'version: 1\ngates:\n  - id: team.no-make-deploy\n    when: { command: { program: make, args_any: [deploy] } }\n')
    writeFileSync(
      join(rule, 'fixtures.yaml'),
      'fixtures:\n  - command: make deploy\n    expect: deny\n    rule: team.no-make-deploy\n  - command: make test\n    expect: allow\n  - tool: run_shell_command\n    harness: gemini\n    input: { command: make build }\n    expect: deny\n    rule: team.no-make-deploy\n',
    )
    const r = await svc(['policy', 'test', rule])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('2 of 3 fixtures passed')
    expect(r.stderr).toContain('#3: gemini run_shell_command make build')
    expect(r.stderr).toContain('- expected: deny by team.no-make-deploy')
    expect(r.stderr).toContain('+ received: allow')
  }, 60_000)
})

describe('svc policy lint', () => {
  it('reports schema errors with line:col, ids reused across layers, shadowed gates and when blocks matching everything or nothing', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'bad.yaml'), 'version: 1\ngates:\n  - id: x\n    when: { tool: Bash }\n    on_hti: deny\n')
    const bad = await svc(['policy', 'lint', join(dir, 'bad.yaml')])
    expect(bad.code).toBe(1)
    expect(bad.stdout).toMatch(/bad\.yaml:3:5: error: PE_POLICY_INVALID .*unknown field "on_hti" \(did you mean "on_hit"\?\)/)
    // Every error of a file, each at its gate, with a did-you-mean; not only the first.
    writeFileSync(
      join(dir, 'many.yaml'),
      'version: 1\nmdoe: firewall\ngates:\n  - id: a.one\n    when: { comand: { program: ls } }\n  - id: a.two\n    when: { tool: Bash }\n    on_hti: deny\n  - id: a.three\n    when: { command: { progam: rm } }\n',
    )
    const many = await svc(['policy', 'lint', join(dir, 'many.yaml')])
    expect(many.stdout).toMatch(/many\.yaml:1:1: error: .*unknown field "mdoe" \(did you mean "mode"\?\)/)
    expect(many.stdout).toMatch(/many\.yaml:4:5: error: PE_GATE_UNKNOWN_KIND gate "a.one": unknown predicate "comand".*\(did you mean "command"\?\)/)
    expect(many.stdout).toMatch(/many\.yaml:6:5: error: .*at \/gates\/1: unknown field "on_hti" \(did you mean "on_hit"\?\)/)
    expect(many.stdout).toMatch(/many\.yaml:9:5: error: .*gate "a.three": when.command must NOT have additional properties "progam" \(did you mean "program"\?\)/)
    expect(many.stdout).toContain('1 file(s): 4 error(s)')
    // A file that loads but whose gates do not compile: each gate's error, at its own line.
    writeFileSync(join(dir, 'two.yaml'), 'version: 1\ngates:\n  - id: b.one\n    when: { pth: "~/x" }\n  - id: b.two\n    when: { urll: "https://x" }\n')
    const two = await svc(['policy', 'lint', join(dir, 'two.yaml')])
    expect(two.stdout).toMatch(/two\.yaml:3:5: error: .*"pth".*\(did you mean "path"\?\)/)
    expect(two.stdout).toMatch(/two\.yaml:5:5: error: .*"urll".*\(did you mean "url"\?\)/)
    writeFileSync(
      join(dir, 'p.yaml'),
      `version: 1
gates:
  - id: git.reset-hard
    when: { tool: Bash, command_regex: '^git reset' }
  - id: team.everything
    when: { tool: '*' }
  - id: team.nothing
    when: { all: [ { tool: Bash }, { tool: Read } ] }
  - id: team.twin
    when: { tool: '*' }
`,
    )
    const r = await svc(['policy', 'lint', join(dir, 'p.yaml')])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/p\.yaml:3:5: error: gate id "git.reset-hard" is also defined in .*policies\/git\.yaml/)
    expect(r.stdout).toMatch(/p\.yaml:5:5: error: gate "team.everything": `when` matches every call/)
    expect(r.stdout).toMatch(/p\.yaml:7:5: error: gate "team.nothing": its `tool` constraints cannot all hold/)
    expect(r.stdout).toMatch(/p\.yaml:9:5: warning: gate "team.twin" is shadowed by "team.everything"/)
    expect((await svc(['policy', 'lint', SHIPPED_POLICIES_DIR])).code).toBe(0)
  }, 60_000)
})

describe('svc explain for harnesses and scripts', () => {
  it('maps a Gemini tool name as the hook path does and exits non-zero on deny with --exit-code', async () => {
    const denied = await svc(['explain', '--harness', 'gemini', '--tool', 'run_shell_command', '--input', '{"command":"git reset --hard"}', '--exit-code'])
    expect(denied.stdout).toContain('tool: Bash')
    expect(denied.stdout).toContain('verdict: DENY (deny) rule git.reset-hard')
    expect(denied.code).toBe(1)
    expect(denied.stderr).toContain('denied by git.reset-hard')
    expect((await svc(['explain', '--harness', 'gemini', '--tool', 'run_shell_command', '--input', '{"command":"git status"}', '--exit-code'])).code).toBe(0)
    expect((await svc(['explain', 'git reset --hard'])).code).toBe(0)
    expect((await svc(['explain', '--harness', 'nope', 'ls'])).code).toBe(2)
  }, 60_000)
})

describe('the false-positive skill', () => {
  it('prints the harness-neutral text and installs the Claude Code skill, also through svc install --with-skill', async () => {
    const printed = await svc(['false-positive', 'skill'])
    expect(printed.stdout).toContain('svc false-positive validate')
    expect(printed.stdout).not.toContain('---\nname:')
    const root = tempDir()
    expect((await svc(['false-positive', 'skill', '--install', root])).code).toBe(0)
    const skill = readFileSync(join(root, '.claude', 'skills', 'svc-false-positive', 'SKILL.md'), 'utf8')
    expect(skill).toMatch(/^---\nname: svc-false-positive\ndescription: .+\n---\n/)
    expect(skill).toContain(printed.stdout.trim())
    const repo = tempDir()
    mkdirSync(join(repo, '.git'))
    const installed = await svc(['install', '--harness', 'claude-code', '--scope', 'repo', '--repo', repo, '--yes', '--with-skill', '--url', 'http://127.0.0.1:9'])
    expect(installed.stdout).toContain(`false-positive skill: ${join(repo, '.claude', 'skills', 'svc-false-positive', 'SKILL.md')}`)
    expect(readFileSync(join(repo, '.claude', 'skills', 'svc-false-positive', 'SKILL.md'), 'utf8')).toBe(skill)

    // Uninstall takes the skill with the hooks: a dry run only names it, an edited copy is left and named.
    const skillPath = join(repo, '.claude', 'skills', 'svc-false-positive', 'SKILL.md')
    const uninstall = (...extra: string[]) => svc(['uninstall', '--harness', 'claude-code', '--scope', 'repo', '--repo', repo, '--yes', ...extra])
    expect((await uninstall('--dry-run')).stdout).toContain(`would remove the false-positive skill ${skillPath}`)
    expect(existsSync(skillPath)).toBe(true)
    const removed = await uninstall()
    expect(removed.code).toBe(0)
    expect(removed.stdout).toContain(`removed the false-positive skill ${skillPath}`)
    expect(existsSync(join(repo, '.claude', 'skills', 'svc-false-positive'))).toBe(false)
    expect((await svc(['false-positive', 'skill', '--install', repo])).code).toBe(0)
    writeFileSync(skillPath, `${skill}\nmy own note\n`)
    const kept = await uninstall()
    expect(kept.code).toBe(0)
    expect(kept.stderr).toContain(`left ${skillPath}: it differs from the skill svc installs`)
    expect(readFileSync(skillPath, 'utf8')).toContain('my own note')
  }, 60_000)
})

describe('redaction', () => {
  it('is deterministic and removes tokens in URLs, Authorization headers, known keys, secret assignments, key blocks and home prefixes', () => {
    const text = [
      'curl -H "Authorization: Bearer abc.def" "https://u:p4ss@h.example/x?token=zzz&q=1"',
      'AWS_SECRET_ACCESS_KEY=abc DB_PASSWORD="hunter2" key AKIAABCDEFGHIJKLMNOP',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----',
      'cat /home/alice/.ssh/config /Users/bob/x',
    ].join('\n')
    const r = redactText(text, '/home/alice')
    for (const secret of ['abc.def', 'p4ss', 'zzz', 'hunter2', 'AKIAABCDEFGHIJKLMNOP', 'b3BlbnNzaC1rZXk', '/home/alice', '/Users/bob']) expect(r.text).not.toContain(secret)
    expect(r.text).toContain('q=1')
    expect(r.kinds).toEqual(['authorization', 'home', 'key:aws_access_key', 'private_key', 'secret_assignment', 'url_credentials', 'url_token'])
    expect(redactText(text, '/home/alice')).toEqual(r)
    expect(redactValue({ headers: { Authorization: 'Basic xyz' }, api_key: 'k' }, 'input').changes).toEqual([
      { field: 'input.api_key', kinds: ['secret_field'] },
      { field: 'input.headers.Authorization', kinds: ['secret_field'] },
    ])
  })
})

describe('stored calls', () => {
  it('keeps each decided call beside the ledger (0600), and svc ledger verify checks each against its leaf', async () => {
    const d = await startTestDaemon()
    try {
      const sid = await d.session()
      await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'ls' } })
      await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git reset --hard' } })
      const { statSync } = await import('node:fs')
      expect(statSync(join(d.home, 'payloads.db')).mode & 0o777).toBe(0o600)
      const ok = await svc(['ledger', 'verify', '--home', d.home])
      expect(ok.stdout).toContain('stored calls: 2 checked against their leaves')
      expect(ok.code).toBe(0)
      const db = new DatabaseSync(join(d.home, 'payloads.db'))
      db.prepare("UPDATE payloads SET body = replace(body, 'ls', 'rm') WHERE seq = 1").run()
      db.close()
      const bad = await svc(['ledger', 'verify', '--home', d.home])
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain('payload of seq 1: its bytes do not hash to the leaf')
    } finally {
      await d.stop()
    }
  }, 60_000)
})

describe('payload retention on the daemon', () => {
  it('answers 410 for a case whose call is past retention (only the hash remains)', async () => {
    const d = await startTestDaemon({ env: { SVC_PAYLOAD_RETENTION: '0' } })
    try {
      const sid = await d.session()
      const denied = await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git reset --hard' } })
      const res = await d.request('GET', `/v1/false-positives/cases/${denied.body.ledger_seq}`)
      expect(res.status).toBe(410)
      expect(res.body).toMatchObject({ code: 'gone', reason: 'payload_expired' })
    } finally {
      await d.stop()
    }
  }, 60_000)

  it('applies a replacement to the user policy through a sealed marker for a built-in gate, visible in the policy view', async () => {
    const d = await startTestDaemon()
    try {
      const sid = await d.session()
      const token = (await d.request('POST', '/v1/auth/login', { password: 'correct horse battery' })).body.token
      const denied = await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git clean -fdx build' }, cwd: tempDir() })
      expect(denied.body.rule_id).toBe('git.clean-force')
      const bundle = (await d.request('GET', `/v1/false-positives/cases/${denied.body.ledger_seq}`)).body
      const replacement = `id: user.clean-force-but-build\nwhen: { all: [ ${JSON.stringify(bundle.matched_gate.when)}, { not: { command_regex: '^git clean -fdx build$' } } ] }\n`
      const applied = await d.request(
        'POST',
        '/v1/false-positives/apply',
        { bundle, replacement_yaml: replacement, policy_hash: bundle.policy_hash },
        { authorization: `Bearer ${token}` },
      )
      expect(applied.status).toBe(201)
      expect(applied.body.target).toMatchObject({ choice: 'auto', layer: 'user', path: join(d.home, 'user-policy.yaml') })
      expect(
        (await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git clean -fdx build' }, cwd: tempDir() })).body.verdict,
      ).toBe('allow')
      expect(
        (await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git clean -fdx' }, cwd: tempDir() })).body,
      ).toMatchObject({ verdict: 'deny', rule_id: 'user.clean-force-but-build' })
      const view = (await d.request('GET', '/v1/policy/view')).body
      expect(view.gates).toContainEqual(expect.objectContaining({ id: 'git.clean-force', source: 'daemon', disabled: true }))
      expect(view.gates).toContainEqual(
        expect.objectContaining({ id: 'git.clean-force', source: 'user', disabled: true, disabled_by: expect.objectContaining({ replacement_id: 'user.clean-force-but-build' }) }),
      )
      expect(view.warnings).toEqual([])
      // A second apply for the same gate is refused: it is already replaced.
      const again = await d.request('POST', '/v1/false-positives/validate', { bundle, replacement_yaml: replacement.replace('user.clean-force-but-build', 'user.other') })
      expect(again.body).toMatchObject({ status: 409, reason: 'already_replaced' })
    } finally {
      await d.stop()
    }
  }, 60_000)

  it('svc log --follow streams new decisions as they are recorded', async () => {
    const d = await startTestDaemon()
    const child = spawn(join(PROJECT_ROOT, 'cli', 'svc.sh'), ['log', '--follow', '--json', '--verdict', 'deny'], {
      env: { PATH: process.env.PATH, ...compileCache(), HOME: tempDir(), SVC_URL: d.url },
    })
    try {
      let out = ''
      child.stdout.on('data', (b: Buffer) => (out += b))
      const sid = await d.session()
      await waitFor(
        async () => {
          await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git push --force' } })
          return out.includes('git.force-push')
        },
        'svc log --follow to print the deny',
        40_000,
      )
      const row = JSON.parse(out.trim().split('\n')[0]!)
      expect(row).toMatchObject({ verdict: 'deny', harness: 'codex', tool: 'Bash', rule_id: 'git.force-push', input: { command: 'git push --force' } })
    } finally {
      child.kill()
      await d.stop()
    }
  }, 60_000)
})
