/**
 * Bad input on every endpoint of openapi.yaml: each answer is RFC 9457 problem+json with the right status,
 * a detail naming what was wrong and no stack trace, the status is one the contract documents, and
 * nothing changed (ledger, policy, mode, sessions, pins, install manifest, harness configs, counters).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BODY_LIMIT_BYTES } from '../daemon/app.ts'
import { HOOK_BODY_LIMIT } from '../daemon/routes/hooks.ts'
import { gateKey } from '../core/state/state-db.ts'
import { casesFor, OPEN_OBJECTS, openObjects, operations, type BadCase } from './helpers/bad-input.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let d: TestDaemon
let userHome: string
let token: string
let sessionId: string

/** Everything a refused request must leave as it was. */
function snapshot() {
  const files = (dir: string): Record<string, string> => {
    if (!existsSync(dir)) return {}
    const out: Record<string, string> = {}
    for (const name of readdirSync(dir, { recursive: true }) as string[]) {
      const path = join(dir, name)
      if (statSync(path).isFile()) out[name] = readFileSync(path, 'utf8')
    }
    return out
  }
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null)
  return {
    ledger: d.engine.ledger.size(),
    policy: d.engine.policy.hash,
    mode: d.engine.mode(),
    guardrails: d.engine.guardrailsEnabled(),
    sessions: d.engine.sessions.list().map((s) => ({ id: s.id, seen: s.lastSeenAt, ended: s.endedAt ?? null })),
    current: d.engine.sessions.current()?.id,
    pins: read(join(d.home, 'mcp-pins.json')),
    manifest: read(join(d.home, 'install/manifest.json')),
    harnessConfigs: files(userHome),
    counters: d.engine.policy.allGates().map((g) => d.engine.state.stats(gateKey(g.source, g.id))),
  }
}

async function send(c: BadCase) {
  const headers: Record<string, string> = {}
  if (c.auth === true) headers.authorization = `Bearer ${token}`
  if (c.auth === 'forged') headers.authorization = `Bearer ${'f'.repeat(64)}`
  if (c.body !== undefined) headers['content-type'] = c.contentType ?? 'application/json'
  const res = await fetch(`${d.url}${c.url}`, { method: c.method, headers, body: c.body === undefined ? undefined : typeof c.body === 'string' ? c.body : JSON.stringify(c.body) })
  const text = await res.text()
  return { status: res.status, type: res.headers.get('content-type') ?? '', text }
}

beforeAll(async () => {
  userHome = tempDir('svc-bad-input-home-')
  mkdirSync(join(userHome, '.cursor'), { recursive: true })
  writeFileSync(join(userHome, '.cursor/hooks.json'), '{ "version": 1, "hooks": {} }\n')
  d = await startTestDaemon({ env: { SVC_USER_HOME: userHome } })
  token = (await d.request('POST', '/v1/auth/login', { password: 'correct horse battery' })).body.token
  sessionId = await d.session()
  const auth = { authorization: `Bearer ${token}` }
  // Some state worth protecting: a decision, a queued pin, an installed hook with its manifest.
  expect((await d.request('POST', '/v1/gates/check', { session_id: sessionId, source: 'test', tool: 'Bash', input: { command: 'ls' } })).status).toBe(200)
  expect((await d.request('POST', '/v1/mcp/pin/check', { server: 'queued', identity: { transport: 'stdio', command: 'x' } })).body.state).toBe('queued')
  const plan = await d.request('POST', '/v1/install/plan', { harnesses: ['cursor'] }, auth)
  expect((await d.request('POST', '/v1/install/apply', { harnesses: ['cursor'], token: plan.body.token }, auth)).body.applied).toBe(true)
})
afterAll(() => d.stop())

const ops = operations()
const valid: Record<string, unknown> = {
  'PATCH /v1/mode': { mode: 'firewall' },
  'POST /v1/auth/login': { password: 'correct horse battery' },
  'POST /v1/grants': { request: { v: 1, kind: 'call', code: 'K7QF3D', issued_at_ms: 0, nonce: 'nonce-0001' } },
  'POST /v1/gates/check': { session_id: 'ses_x', source: 'test', tool: 'Bash', input: { command: 'ls' }, cwd: '/tmp', meta: {} },
  'POST /v1/sessions/create': { signer: 'unattested', user_id: 'u', groups: [] },
  'POST /v1/sessions/heartbeat': { session_id: 'ses_x' },
  'POST /v1/ledger/verify': { leaf: '', seq: 0, tree_size: 1, proof: [], root: '', leaf_sig: '', session_public_key: '' },
  'POST /v1/install/plan': { harnesses: ['cursor'], scope: 'user', repo: '/tmp', fail_open: false, transport: 'command', daemon_url: 'http://127.0.0.1:1' },
  'POST /v1/install/apply': {
    harnesses: ['cursor'],
    scope: 'user',
    repo: '/tmp',
    fail_open: false,
    transport: 'command',
    daemon_url: 'http://127.0.0.1:1',
    token: `install-${'0'.repeat(32)}`,
  },
  'POST /v1/uninstall': { harnesses: ['cursor'], scope: 'user', token: `uninstall-${'0'.repeat(32)}`, dry_run: true },
  'POST /v1/mcp/pin/check': { server: 'x', harness: 'cursor', cwd: '/tmp', identity: { transport: 'stdio', command: 'x' }, tools: [] },
  'POST /v1/mcp/pin/accept': { server: 'x', fingerprint: `sha256:${'0'.repeat(64)}` },
  'POST /v1/mcp/pin/reject': { server: 'x', fingerprint: `sha256:${'0'.repeat(64)}` },
  'POST /v1/mcp/proxy/{event}': {
    server: 'x',
    harness: 'cursor',
    identity: { command: 'x', args: [], cwd: '/tmp' },
    method: 'tools/call',
    params: {},
    request_id: 'r',
    outcome: 'ran',
    tools: [],
    first: true,
    last: true,
  },
  'POST /v1/guardrails/providers/{id}/test': { model: 'openai/omni-moderation-latest', text: 'probe' },
  'PUT /v1/guardrails/enabled': { enabled: true },
  'POST /v1/false-positives/validate': { bundle: {}, replacement_yaml: 'id: x', target: 'auto', note: '', examples: [], policy_hash: '0' },
  'POST /v1/false-positives/apply': { bundle: {}, replacement_yaml: 'id: x', target: 'auto', note: '', examples: [], policy_hash: '0' },
  'POST /v1/false-positives/revert': { apply_seq: 0 },
  'POST /v1/false-positives/cases/{seq}/replay': { bundle: {}, replacement_yaml: 'id: x', target: 'auto', note: '', examples: [], policy_hash: '0' },
}
const generated = ops.flatMap((op) =>
  casesFor(op, {
    fill: {
      seq: '0',
      harness: 'claude-code',
      event: 'PostToolUse',
      get id() {
        return sessionId
      },
    },
    unknown: {
      seq: { value: '999999', status: 404 },
      id: { value: 'ses_nope', status: 404 },
      harness: { value: 'vim', status: 404 },
      event: { value: 'NoSuchEvent', status: 404 },
    },
    valid,
    validQuery: { from: '1', seqs: '0' },
    defaultBodyLimit: BODY_LIMIT_BYTES,
    // It answers text that is not Unicode with a recorded deny (test/hook-bad-input.api.test.ts), not a 400.
    readsIllFormedText: new Set(['POST /v1/gates/check']),
    bodyLimits: { '/v1/hooks/{harness}/{event}': HOOK_BODY_LIMIT },
  }),
)

/** Faults a schema cannot see: well-formed requests naming things that do not exist or cannot be done. */
const op = (method: string, url: string, body: unknown, status: number, detail: RegExp, auth = false): BadCase => ({
  name: `${method} ${url}: ${detail.source}`,
  method,
  url,
  body,
  auth,
  status,
  detail,
  documented: true,
})
const zero32 = '0'.repeat(32)
const semantic: BadCase[] = [
  op('PATCH', '/v1/mode', { mode: 'off' }, 400, /field "mode" must be equal to one of the allowed values/, true),
  op('POST', '/v1/guardrails/providers/openai/test', { model: 'openai/usage-policies' }, 422, /account_policy entry: listed in the catalog only/, true),
  op('POST', '/v1/guardrails/providers/openai/test', { model: 'openai/nope' }, 404, /provider openai has no model "openai\/nope"/, true),
  op('POST', '/v1/auth/login', { password: 'wrong' }, 401, /wrong password/),
  op('POST', '/v1/sessions/create', {}, 400, /needs a "certificate"/),
  op('POST', '/v1/sessions/create', { signer: 'software' }, 400, /needs a certificate signed by the host key/),
  op('POST', '/v1/sessions/heartbeat', { session_id: 'ses_nope' }, 404, /no session ses_nope/),
  op('GET', '/v1/ledger/proof/0?tree_size=0', undefined, 400, /tree_size must be above 0/),
  op('GET', '/v1/ledger/consistency?from=0', undefined, 400, /need 1 <= from <= to/),
  op('GET', '/v1/ledger/consistency?from=2&to=1', undefined, 400, /need 1 <= from <= to/),
  op('GET', '/v1/ledger/entries?limit=0', undefined, 400, /field "limit" must match/),
  op('GET', '/v1/sessions/insights?top=0', undefined, 400, /field "top" must match/),
  op('GET', `/v1/policy/view?cwd=${encodeURIComponent('/tmp/\u0000x')}`, undefined, 400, /cwd/),
  op('POST', '/v1/install/plan', { scope: 'repo' }, 400, /scope "repo" needs "repo"/, true),
  op('POST', '/v1/install/plan', { harnesses: ['vim'] }, 400, /unknown harness "vim"/, true),
  op('POST', '/v1/install/plan', { harnesses: ['windsurf'] }, 501, /not yet implemented/, true),
  op('POST', '/v1/install/plan', { harnesses: ['cursor'], scope: 'repo', repo: '/tmp/\u0000x' }, 400, /repo/, true),
  op('POST', '/v1/install/apply', { harnesses: ['cursor'], token: `install-${zero32}` }, 409, /plan|token/, true),
  op('POST', '/v1/uninstall', { token: `uninstall-${zero32}` }, 409, /plan|token/, true),
  op('POST', '/v1/mcp/pin/check', { server: 'nowhere' }, 404, /no MCP server "nowhere"/),
  op('POST', '/v1/mcp/pin/check', { server: 'x', harness: 'vim' }, 404, /unknown harness "vim"/),
  op('POST', '/v1/mcp/pin/check', { server: 'x', cwd: '/tmp/\u0000x' }, 400, /cwd/),
  op('POST', '/v1/mcp/pin/check', { server: 'x', identity: { transport: 'tcp' } }, 400, /missing required field "identity.tcp"/),
  op('POST', '/v1/mcp/pin/check', { server: 'x', identity: { transport: 'stdio', url: 'http://x' } }, 400, /missing required field "identity.command"/),
  op('POST', '/v1/gates/check', { session_id: 'x', source: 's', tool: 'Bash', input: {}, cwd: 'relative/dir' }, 400, /field "cwd" must match pattern/),
  op('GET', '/v1/ledger/proof/9999999999999999', undefined, 400, /field "seq" must match pattern/),
  op('POST', '/v1/mcp/pin/accept', { server: 'nothing-queued', fingerprint: `sha256:${'0'.repeat(64)}` }, 404, /nothing-queued/, true),
  op('POST', '/v1/mcp/proxy/nothing', { server: 'x', identity: { command: 'x', args: [], cwd: '/tmp' } }, 404, /no event "nothing"/),
  op('POST', '/v1/mcp/pin/accept', { server: 'queued' }, 400, /missing required field "fingerprint"/, true),
  op('POST', '/v1/mcp/pin/accept', { server: 'queued', fingerprint: `sha256:${'0'.repeat(64)}` }, 409, /fingerprint/, true),
  // Pre-tool events answer every bad payload with a native deny instead (test/hook-bad-input.api.test.ts).
  op('POST', '/v1/hooks/claude-code/PostToolUse', { tool_input: {} }, 400, /field "tool_name" is required/),
  op('POST', '/v1/hooks/gemini/PreToolUse', {}, 404, /no hook event "PreToolUse"/),
  op('POST', '/v1/hooks/windsurf/pre_run_command', {}, 501, /not yet implemented/),
  // No operation of the contract: nothing to check its status against.
  { ...op('GET', '/v1/nowhere', undefined, 404, /no route GET \/v1\/nowhere/), documented: false },
  op('GET', `/v1/sessions/${'a'.repeat(200)}`, undefined, 414, /path parameter is longer than 100 characters/),
  op('POST', `/v1/hooks/claude-code/${'E'.repeat(101)}`, {}, 414, /path parameter is longer than 100 characters/),
  op('GET', '/v1/ledger/proof/%E0%A4%A', undefined, 400, /not a valid URL/),
  op('GET', '/v1/false-positives/cases/0', undefined, 422, /seq 0 is a session entry/),
  op('POST', '/v1/false-positives/validate', { bundle: {}, replacement_yaml: 'id: x' }, 422, /bundle.event.seq/),
  op('POST', '/v1/false-positives/revert', { apply_seq: 999999 }, 404, /not a false-positive apply/, true),
  op('GET', '/v1/ledger/entries?order=asc&before=3', undefined, 400, /use it with order=desc/),
  op('GET', '/v1/ledger/entries?since=2026-13-99', undefined, 400, /since must be an ISO 8601 time/),
]

describe('bad input on every endpoint', () => {
  it('covers every operation of the contract, and every request schema refuses unknown fields', () => {
    expect(ops.length).toBeGreaterThanOrEqual(24)
    const covered = new Set(generated.map((c) => c.name.split(':')[0]))
    for (const o of ops) expect(covered).toContain(`${o.method} ${o.path}`)
    const open = ops.flatMap((o) => openObjects(`${o.method} ${o.path}`, o.body))
    expect(open.filter((at) => !OPEN_OBJECTS.has(at))).toEqual([])
  })

  for (const c of [...generated, ...semantic]) {
    it(c.name, async () => {
      const before = snapshot()
      const res = await send(c)
      expect(res.type, `${res.status} ${res.text.slice(0, 300)}`).toContain('application/problem+json')
      const body = JSON.parse(res.text) as Record<string, unknown>
      expect({ status: res.status, detail: body.detail }).toMatchObject({ status: c.status, detail: expect.stringMatching(c.detail) })
      expect(body).toMatchObject({
        type: expect.stringMatching(/^https:\/\/svc\.dev\/problems\/[a-z_]+$/),
        title: expect.any(String),
        status: c.status,
        code: expect.stringMatching(/^[a-z_]+$/),
      })
      expect(res.text).not.toMatch(/\bat .+\.(ts|js):\d+|node:internal|Error:\s/)
      if (c.documented) {
        const documented = ops.find((o) => o.method === c.method && new RegExp(`^${o.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(c.url.split('?')[0]!))
        expect(documented, `${c.method} ${c.url} matches no operation of the contract`).toBeDefined()
        expect(documented!.responses, `${c.status} is not documented for ${documented!.method} ${documented!.path}`).toContain(String(c.status))
      }
      expect(snapshot()).toEqual(before)
    })
  }
})

describe('engine and storage failures', () => {
  it('answer 503 problems with a stable code when the ledger is unavailable, never a bare 500', async () => {
    const broken = await startTestDaemon()
    try {
      const sid = await broken.session()
      await broken.engine.ledger.close()
      const check = await broken.request('POST', '/v1/gates/check', { session_id: sid, source: 'test', tool: 'Bash', input: { command: 'ls' } })
      expect(check).toMatchObject({ status: 503, type: expect.stringContaining('application/problem+json') })
      expect(check.body).toEqual({
        type: 'https://svc.dev/problems/unavailable',
        title: 'Service Unavailable',
        status: 503,
        code: 'unavailable',
        detail: 'ledger unavailable: ledger is closed',
        engine_code: 'PE_LEDGER_BROKEN',
      })
      const hook = await broken.request('POST', '/v1/hooks/claude-code/PreToolUse', {
        session_id: 's',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: 'toolu_x',
        cwd: '/tmp',
      })
      // A pre-tool hook never gets an error status (Claude's HTTP hook would run the tool): a native deny naming why.
      expect(hook.status).toBe(200)
      expect(hook.body.hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/could not decide this call \(daemon storage unavailable/),
      })
      const entries = await broken.request('GET', '/v1/ledger/entries')
      expect(entries.body).toMatchObject({ status: 503, code: 'unavailable', detail: expect.stringMatching(/^daemon storage unavailable: /) })
    } finally {
      await broken.stop()
    }
  })
})
