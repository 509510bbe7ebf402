/** `svc explain` through the real CLI (in-process): parsed commands, every gate with its layer and why, the verdict. */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

const home = tempDir('svc-explain-')
const userHome = tempDir('svc-explain-user-')
const env = { ...process.env, SVC_HOME: home, SVC_USER_HOME: userHome }

const svc = (args: string[]) => runCli(args, env)

describe('svc explain', () => {
  it('shows the parsed simple commands, each gate with its layer, and the deny verdict with its nudge', async () => {
    const r = await svc(['explain', "sudo bash -c 'r''m -rf ~'", '--cwd', userHome])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`rm -rf ${userHome}`)
    expect(r.stdout).toContain('via=sudo → bash -c')
    expect(r.stdout).toMatch(/MATCH daemon\s+fs\.rm-root-or-home/)
    // Only what matched by default; every gate with --all.
    expect(r.stdout).not.toContain('git.reset-hard')
    expect(r.stdout).toMatch(/gates evaluated \(\d+, 1 matched\); the \d+ that did not match are listed with --all:/)
    expect(r.stdout).toContain('verdict: DENY (deny) rule fs.rm-root-or-home (pack filesystem, severity deny)')
    expect(r.stdout).toMatch(/nudge: Delete the specific directory/)
    const all = await svc(['explain', "sudo bash -c 'r''m -rf ~'", '--cwd', userHome, '--all'])
    expect(all.stdout).toMatch(/ - +daemon\s+git\.reset-hard\s+\[deny · git\]\s+command: no match/)
  })

  it('writes nothing: no $SVC_HOME is created, and an existing one is left as it was', async () => {
    const fresh = join(tempDir('svc-explain-fresh-'), '.svc')
    const r = await runCli(['explain', 'cat ~/.ssh/id_rsa'], { ...env, SVC_HOME: fresh })
    expect(r.stdout).toContain('rule secrets.ssh-private-key')
    expect(existsSync(fresh)).toBe(false)
    mkdirSync(fresh)
    writeFileSync(join(fresh, 'user-policy.yaml'), 'version: 1\ngates:\n  - id: user.no-ls\n    when: { command: { program: ls } }\n    on_hit: deny\n')
    const denied = await runCli(['explain', 'ls'], { ...env, SVC_HOME: fresh })
    expect(denied.stdout).toContain('rule user.no-ls')
    expect(readdirSync(fresh)).toEqual(['user-policy.yaml'])
  })

  it('allows data that only mentions a dangerous command, and says no gate matched', async () => {
    const r = await svc(['explain', 'git commit -m "never run git reset --hard"', '--cwd', userHome])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('verdict: ALLOW (allow)')
    expect(r.stdout).not.toContain('MATCH')
  })

  it('explains other tools with --tool/--input, as JSON, including the repo layer', async () => {
    const repo = join(userHome, 'repo')
    mkdirSync(join(repo, '.git'), { recursive: true })
    writeFileSync(
      join(repo, '.svc.yaml'),
      'version: 1\ngates:\n  - id: repo.no-readme\n    when: { tool: Read, path: "**/README.md" }\n    on_hit: deny\n    nudge: read docs/ instead\n',
    )
    const r = await svc(['explain', '--tool', 'Read', '--input', JSON.stringify({ file_path: join(repo, 'README.md') }), '--cwd', repo, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.decision).toMatchObject({ verdict: 'deny', rule_id: 'repo.no-readme', nudge: 'read docs/ instead' })
    expect(out.gates).toContainEqual(expect.objectContaining({ layer: 'repo', id: 'repo.no-readme', matched: true }))
    expect(out.gates.filter((g: { layer: string }) => g.layer === 'daemon').length).toBeGreaterThan(10)
  })

  it('refuses bad input with a clear message and usage exit code', async () => {
    const r = await svc(['explain', '--tool', 'Read', '--input', '{not json'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--input is not valid JSON')
    const none = await svc(['explain'])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('give a command to explain')
  })
})
