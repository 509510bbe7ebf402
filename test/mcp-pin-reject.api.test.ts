/**
 * Rejecting an MCP server pin: through the real daemon and the real `svc mcp pin reject` CLI, the operator's
 * reject of the waiting fingerprint is ledgered (`mcp_pin_rejected`), the server's calls stay denied with a
 * reason naming the rejection and the way back (`svc mcp pin accept`), and a later accept undoes it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

let daemon: TestDaemon
let userHome: string
let session: string
const operator = async () => ({ authorization: `Bearer ${await daemon.operatorToken()}` })

beforeAll(async () => {
  userHome = tempDir('svc-pin-reject-home-')
  mkdirSync(join(userHome, '.gemini'), { recursive: true })
  writeFileSync(join(userHome, '.gemini/settings.json'), JSON.stringify({ mcpServers: { notes: { command: 'npx', args: ['-y', 'notes-server'] } } }))
  daemon = await startTestDaemon({ env: { SVC_USER_HOME: userHome } })
  session = await daemon.session()
})
afterAll(async () => {
  await daemon.stop()
  rmSync(userHome, { recursive: true, force: true })
})

const mcpCall = () => daemon.request('POST', '/v1/gates/check', { session_id: session, source: 'gemini', tool: 'mcp__notes__search', input: { q: 'x' } }).then((r) => r.body)
const pin = async () => ((await daemon.request('GET', '/v1/mcp/pins')).body.servers as any[]).find((p) => p.server === 'notes')

describe('MCP pin reject', () => {
  it('rejects the waiting fingerprint (operator, ledgered): calls are denied naming the rejection until an accept', async () => {
    const queued = await mcpCall()
    expect(queued.verdict).toBe('deny')
    expect(queued.reason).not.toContain('rejected')
    const waiting = (await pin()).pending_fingerprint as string

    expect((await daemon.request('POST', '/v1/mcp/pin/reject', { server: 'notes', fingerprint: waiting })).status).toBe(401)
    expect((await daemon.request('POST', '/v1/mcp/pin/reject', { server: 'nobody', fingerprint: waiting }, await operator())).status).toBe(404)
    const wrong = await daemon.request('POST', '/v1/mcp/pin/reject', { server: 'notes', fingerprint: `sha256:${'1'.repeat(64)}` }, await operator())
    expect(wrong).toMatchObject({ status: 409, body: { detail: expect.stringContaining('you reviewed') } })

    const env = { SVC_URL: daemon.url, SVC_TOKEN: await daemon.operatorToken() }
    const cli = await runCli(['mcp', 'pin', 'reject', 'notes'], env)
    expect(cli.stderr).toBe('')
    expect(cli.code).toBe(0)
    expect(cli.stdout).toContain(`rejected notes at ${waiting}`)
    expect(await pin()).toMatchObject({ state: 'queued', rejected_fingerprint: waiting, rejected_by: expect.stringMatching(/^operator:/) })
    const leaf = (await daemon.request('GET', '/v1/ledger/entries?order=desc&limit=1')).body.entries[0].leaf
    expect(leaf).toMatchObject({ type: 'control', verdict: 'mcp_pin_rejected', facts: { server: 'notes', fingerprint: waiting, who: expect.stringMatching(/^operator:/) } })

    const denied = await mcpCall()
    expect(denied).toMatchObject({ verdict: 'deny', rule_id: 'mcp.unpinned-server' })
    expect(denied.reason).toContain('was rejected by an operator')
    expect(denied.reason).toContain('svc mcp pin accept notes')

    const accepted = await daemon.request('POST', '/v1/mcp/pin/accept', { server: 'notes', fingerprint: waiting }, await operator())
    expect(accepted.body).toMatchObject({ state: 'pinned', pinned_fingerprint: waiting })
    expect(accepted.body.rejected_fingerprint).toBeUndefined()
    expect((await mcpCall()).verdict).toBe('allow')
    const nothing = await runCli(['mcp', 'pin', 'reject', 'notes'], env)
    expect(nothing.code).not.toBe(0)
    expect(nothing.stderr).toContain('nothing waiting to be rejected')
  })
})
