/**
 * Allow-once in the user's hands, through real processes: a `svc daemon`, the user's `svc session create` and
 * `svc allow` as child processes. The agent cannot grant itself one (`svc allow` from a tool call is denied; the
 * API refuses a grant without the user's proof), the user's `svc allow <code>` lets exactly that call through
 * once, an expired grant denies again, `svc allow rule --project` affects only that project, and the grant and
 * each use are control leaves that `svc ledger verify` accepts. The user's pack choices are control leaves too.
 */
import { mkdirSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadSoftwareKey } from '../cli/signer/software-key.ts'
import { newSeed, signingKeyFromSeed } from '../core/index.ts'
import { signGrant } from '../plugins/grants/index.ts'
import { startDaemonProcess, type DaemonProcess } from './helpers/daemon-process.ts'
import { runCliProcess } from './helpers/run-cli.ts'
import { tempDir } from './helpers/temp.ts'

let home: string
let daemon: DaemonProcess
let env: NodeJS.ProcessEnv
let session: string
let projectA: string
let projectB: string

const DESTROY = 'rm -f .env'

beforeAll(async () => {
  home = realpathSync(tempDir('svc-grants-'))
  projectA = join(home, 'work', 'a')
  projectB = join(home, 'work', 'b')
  mkdirSync(projectA, { recursive: true })
  mkdirSync(projectB, { recursive: true })
  env = { SVC_HOME: join(home, 'svc'), HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_ADMIN_PASSWORD: 'correct horse battery' }
  daemon = await startDaemonProcess(env)
  env = { ...env, SVC_URL: daemon.url }
  const minted = await svc(['session', 'create', '--tier', 'software'])
  expect(minted.code, minted.stderr).toBe(0)
  session = (await get('/v1/sessions/current')).session.session_id
}, 180_000)

afterAll(async () => {
  await daemon?.stop()
  rmSync(home, { recursive: true, force: true })
}, 60_000)

// The user's own terminal: no SVC_ADMIN_PASSWORD or token, only the host key the session was minted with.
const svc = (args: string[]) => runCliProcess(args, { ...env, SVC_ADMIN_PASSWORD: undefined })

async function get(path: string): Promise<any> {
  return (await fetch(`${daemon.url}${path}`)).json()
}

const check = async (command: string, cwd: string) =>
  (await daemon.post('/v1/gates/check', { session_id: session, source: 'claude-code', tool: 'Bash', input: { command }, cwd })).body as {
    verdict: string
    reason: string
    rule_id: string
    ledger_seq: number
  }

const codeIn = (reason: string) => /the user runs: svc allow ([A-Z0-9]{6})/.exec(reason)?.[1]

async function leaves(): Promise<any[]> {
  return (await get('/v1/ledger/entries?limit=1000')).entries.map((e: { leaf: unknown }) => e.leaf)
}

// Each test runs several `svc` processes: generous bounds for a loaded machine (no timing is asserted).
describe('svc allow', { timeout: 180_000 }, () => {
  it('every deny names a code; the agent cannot grant it (tool call denied, API without proof refused)', async () => {
    const denied = await check(DESTROY, projectA)
    expect(denied).toMatchObject({ verdict: 'deny', rule_id: 'secrets.env-file-destroy' })
    const code = codeIn(denied.reason)!
    expect(code).toBeDefined()
    // The same call denied again names the same code.
    expect(codeIn((await check(DESTROY, projectA)).reason)).toBe(code)

    // The agent typing the user's command is denied by the self-protection pack, also through a wrapper.
    for (const attempt of [`svc allow ${code}`, `bash -c 'svc allow ${code} --for 10m'`, `svc allow rule secrets.env-file-destroy --project ${projectA}`]) {
      expect(await check(attempt, projectA)).toMatchObject({ verdict: 'deny', rule_id: 'self.svc-cli' })
    }
    // The API refuses a grant without the user's proof, and one signed by a key the daemon does not trust.
    const request = { v: 1, kind: 'call', code, issued_at_ms: Date.now(), nonce: 'agent-nonce-1' } as const
    const bare = await daemon.post('/v1/grants', { request })
    expect(bare.status).toBe(401)
    expect(bare.body).toMatchObject({ code: 'unauthorized', error: 'grant_unproven' })
    const forged = await daemon.post('/v1/grants', signGrant(request, signingKeyFromSeed(newSeed())))
    expect(forged.status).toBe(403)
    expect(forged.body).toMatchObject({ code: 'forbidden', error: 'grant_unproven' })
    expect((await check(DESTROY, projectA)).verdict).toBe('deny')
  })

  it("the user's svc allow <code> lets exactly that call through once; other payloads and directories stay denied", async () => {
    const code = codeIn((await check(DESTROY, projectA)).reason)!
    const granted = await svc(['allow', code])
    expect(granted.code, granted.stderr).toBe(0)
    expect(granted.stdout).toMatch(new RegExp(`allowed once until .*code ${code} from ${projectA}`))

    // Not another payload, not another directory.
    expect((await check('rm -f .env.local', projectA)).verdict).toBe('deny')
    expect((await check(DESTROY, projectB)).verdict).toBe('deny')
    const through = await check(DESTROY, projectA)
    expect(through.verdict).toBe('allow')
    expect(through.reason).toMatch(/allowed by the user's grant g_[0-9a-f]{12} over secrets\.env-file-destroy/)
    // Once: the next identical call is denied again.
    expect((await check(DESTROY, projectA)).verdict).toBe('deny')

    const all = await leaves()
    const grantLeaf = all.find((l) => l.type === 'control' && l.verdict === 'allow_granted' && l.facts.code === code)
    expect(grantLeaf.facts).toMatchObject({ kind: 'call', gates: 'secrets.env-file-destroy', cwd: projectA, once: 'true', who: expect.stringMatching(/^host-key:/) })
    const decision = all.find((l) => l.seq === through.ledger_seq)
    expect(decision).toMatchObject({ type: 'decision', verdict: 'allow' })
    const use = await waitForLeaf((l) => l.verdict === 'allow_used' && l.facts.decision_seq === String(through.ledger_seq))
    expect(use.facts.grant).toBe(grantLeaf.facts.grant)

    const log = await svc(['log', '--verdict', 'allow_granted,allow_used', '--limit', '10'])
    expect(log.code, log.stderr).toBe(0)
    expect(log.stdout).toMatch(/allow_granted/)
    expect(log.stdout).toMatch(/allow_used/)
  })

  it('a grant for a window expires by itself and the call is denied again', async () => {
    const code = codeIn((await check(DESTROY, projectA)).reason)!
    const granted = await svc(['allow', code, '--for', '2s'])
    expect(granted.code, granted.stderr).toBe(0)
    expect((await check(DESTROY, projectA)).verdict).toBe('allow')
    expect((await check(DESTROY, projectA)).verdict).toBe('allow')
    await new Promise((r) => setTimeout(r, 2_200))
    expect((await check(DESTROY, projectA)).verdict).toBe('deny')
  })

  it("the user's pack choices are control leaves (svc policy packs disable / severity / enable)", async () => {
    for (const [args, to] of [
      [['disable', 'iac'], 'off'],
      [['severity', 'iac', 'monitor'], 'monitor'],
      [['enable', 'iac'], 'as shipped'],
    ] as const) {
      const run = await svc(['policy', 'packs', ...args, '--home', env.SVC_HOME!])
      expect(run.code, run.stderr).toBe(0)
      const leaf = await waitForLeaf((l) => l.verdict === 'config_changed' && l.facts.setting === 'pack' && l.facts.to === to)
      expect(leaf.facts).toMatchObject({ pack: 'iac', to })
    }
  })

  it('svc allow rule --project stops one gate denying in that project only, and the ledger verifies', async () => {
    const granted = await svc(['allow', 'rule', 'secrets.env-file-destroy', '--project', projectA, '--for', '1h'])
    expect(granted.code, granted.stderr).toBe(0)
    expect((await check('rm -f .env.production', projectA)).verdict).toBe('allow')
    expect((await check('rm -f .env.production', join(projectA, 'sub'))).verdict).toBe('allow')
    expect((await check('rm -f .env.production', projectB)).verdict).toBe('deny')
    // Only that gate: another gate still denies in the project.
    expect((await check('cat .env', projectA)).verdict).toBe('deny')
    const unknown = await svc(['allow', 'rule', 'no.such-gate', '--project', projectA])
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toMatch(/no gate "no.such-gate"/)

    // A signed request is accepted once: a replay of the user's own signature is refused.
    const signed = signGrant(
      { v: 1, kind: 'rule', gate: 'secrets.env-file-destroy', project: join(home, 'elsewhere'), for_ms: 60_000, issued_at_ms: Date.now(), nonce: 'replayed-nonce' },
      loadSoftwareKey(env.SVC_HOME!, env),
    )
    expect((await daemon.post('/v1/grants', signed)).status).toBe(201)
    expect((await daemon.post('/v1/grants', signed)).body).toMatchObject({ status: 409, error: 'grant_replayed' })

    const verified = await runCliProcess(['ledger', 'verify'], env)
    expect(verified.code, verified.stdout + verified.stderr).toBe(0)
  })
})

async function waitForLeaf(match: (leaf: any) => boolean): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const found = (await leaves()).find((l) => l.type === 'control' && match(l))
    if (found) return found
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('no such leaf')
}
