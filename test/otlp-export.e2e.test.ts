/**
 * OTLP export end to end: a real daemon with SVC_OTLP_ENDPOINT set ships its ledger to a real OTLP/HTTP
 * receiver (protobuf decoded in the test). The receiver goes down for a while and answers 503 for a while;
 * checks keep being answered, and once it is back it holds every leaf exactly once, in order, byte for byte,
 * plus the signed checkpoints. `svc export otlp` (one-shot) keeps its own per-endpoint cursor.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess } from './helpers/daemon-process.ts'
import { startOtlpReceiver, type ReceivedRecord } from './helpers/otlp-receiver.ts'
import { waitFor } from './helpers/wait.ts'
import { runCli } from './helpers/run-cli.ts'

vi.setConfig({ testTimeout: 120_000 })

const home = tempDir('svc-otlp-')
const env = { PATH: process.env.PATH, HOME: home, SVC_HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', SVC_LOG_LEVEL: 'info' }
afterAll(() => rmSync(home, { recursive: true, force: true }))

const leaves = (records: readonly ReceivedRecord[]) => records.filter((r) => r.eventName !== 'svc.checkpoint')

describe('svc export otlp', () => {
  it('ships every leaf exactly once in order across a collector outage, from the daemon, off the hook path', async () => {
    const receiver = await startOtlpReceiver()
    const daemon = await startDaemonProcess({
      ...env,
      SVC_OTLP_ENDPOINT: receiver.url,
      SVC_OTLP_INTERVAL: '100ms',
      SVC_OTLP_TIMEOUT_MS: '500',
      SVC_OTLP_HEADERS: 'x-tenant=fleet-a',
    })
    try {
      const created = await daemon.post('/v1/sessions/create', mintSession(unlockHostKey('software', { home, env })))
      expect(created.status).toBe(201)
      const session = created.body.session_id as string
      const check = async (command: string, toolUseId = '') => {
        const r = await daemon.post('/v1/gates/check', { session_id: session, source: 'claude-code', tool: 'Bash', input: { command }, meta: { tool_use_id: toolUseId } })
        expect(r.status).toBe(200)
        return r.body as { verdict: string; ledger_seq: number }
      }
      await check('ls', 'toolu_1')
      await waitFor(() => leaves(receiver.records).length >= 2, 'the first leaves')

      await receiver.down()
      for (let i = 0; i < 20; i++) await check(`echo down-${i}`) // answered while the collector is unreachable
      receiver.unavailable = true
      await receiver.up()
      for (let i = 0; i < 10; i++) await check(`echo busy-${i}`)
      await waitFor(() => receiver.requests > 3, 'retries against 503')
      receiver.unavailable = false
      const last = await check('rm -rf /', 'password=hunter2')
      expect(last.verdict).toBe('deny')
      await waitFor(() => leaves(receiver.records).some((r) => r.attributes['svc.ledger.seq'] === last.ledger_seq), 'the last leaf', 60_000)
    } finally {
      await daemon.stop()
      await receiver.close()
    }

    expect((await runCli(['ledger', 'export', '--out', join(home, 'export.json')], env)).code).toBe(0)
    const exported = JSON.parse(readFileSync(join(home, 'export.json'), 'utf8')) as { leaves: { seq: number; body: string; sig: string | null }[]; origin: string }
    const got = leaves(receiver.records)
    const seqs = got.map((r) => r.attributes['svc.ledger.seq'])
    // Exactly once, in order, from seq 0; bodies are the exact leaf bytes.
    expect(seqs).toEqual(seqs.map((_, i) => i))
    expect(got.length).toBeGreaterThanOrEqual(33)
    for (const r of got) {
      const leaf = exported.leaves[r.attributes['svc.ledger.seq'] as number]!
      expect(r.body).toBe(leaf.body)
      if (leaf.sig) expect(r.attributes['svc.ledger.leaf_sig']).toBe(leaf.sig)
      expect(r.resource['svc.ledger.origin']).toBe(exported.origin)
      expect(r.resource['service.name']).toBe('svc')
      expect(r.scope).toBe('svc.ledger')
    }
    const denied = got.find((r) => r.attributes['svc.decision'] === 'deny')!
    expect(denied.severityNumber).toBe(13)
    expect(denied.attributes['gen_ai.tool.name']).toBe('Bash')
    expect(denied.attributes['svc.harness']).toBe('claude-code')
    expect(denied.attributes['security_rule.name']).toBeTypeOf('string')
    expect(denied.attributes['svc.session.id']).toMatch(/^ses_/)
    expect(denied.attributes['gen_ai.tool.call.id']).not.toContain('hunter2') // redacted like every surface
    expect(denied.body).toContain('hunter2') // the leaf bytes themselves are evidence, unchanged
    expect(got.some((r) => r.eventName === 'svc.session_cert')).toBe(true)
    const checkpoints = receiver.records.filter((r) => r.eventName === 'svc.checkpoint')
    expect(checkpoints.length).toBeGreaterThan(0)
    for (const c of checkpoints) expect(c.body.startsWith(`${exported.origin}\n${c.attributes['svc.ledger.tree_size']}\n`)).toBe(true)
  })

  it('one-shot: sends what the endpoint has not accepted, keeps the cursor on refusal', async () => {
    const receiver = await startOtlpReceiver()
    try {
      receiver.unavailable = true
      const refused = await runCli(['export', 'otlp', '--endpoint', receiver.url, '--timeout', '300ms'], env)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('cursor stays at seq 0')
      receiver.unavailable = false
      const first = await runCli(['export', 'otlp', '--endpoint', receiver.url, '--batch-size', '7'], env)
      expect(first.stderr).toBe('')
      expect(first.code).toBe(0)
      const n = leaves(receiver.records).length
      expect(n).toBeGreaterThan(30)
      expect(first.stdout).toContain(`exported ${n} leaves (seq 0..${n - 1})`)
      const again = await runCli(['export', 'otlp', '--endpoint', receiver.url], env)
      expect(again.stdout).toContain('exported 0 leaves')
      expect(leaves(receiver.records).length).toBe(n)
    } finally {
      await receiver.close()
    }
  })

  it('speaks TLS to a collector with a private CA (--ca), and refuses one it cannot authenticate', async () => {
    const dir = join(home, 'tls')
    mkdirSync(dir)
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
    ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=test ca')
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1')
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n')
    ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext')
    const receiver = await startOtlpReceiver(undefined, 0, { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) })
    try {
      const untrusted = await runCli(['export', 'otlp', '--endpoint', receiver.url, '--timeout', '500ms'], env)
      expect(untrusted.code).toBe(1)
      expect(receiver.records).toEqual([])
      const trusted = await runCli(['export', 'otlp', '--endpoint', receiver.url, '--ca', join(dir, 'ca.pem'), '--header', 'authorization=Bearer t0ken'], env)
      expect(trusted.stderr).toBe('')
      expect(trusted.code).toBe(0)
      expect(leaves(receiver.records).length).toBeGreaterThan(30)
    } finally {
      await receiver.close()
    }
    // The daemon's variables are the CLI's defaults too: SVC_OTLP_CA trusts the private CA without --ca.
    const second = await startOtlpReceiver(undefined, 0, { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) })
    try {
      const fromEnv = await runCli(['export', 'otlp', '--endpoint', second.url], { ...env, SVC_OTLP_CA: join(dir, 'ca.pem') })
      expect(fromEnv.stderr).toBe('')
      expect(fromEnv.code).toBe(0)
      expect(leaves(second.records).length).toBeGreaterThan(30)
    } finally {
      await second.close()
    }
  })

  it('refuses a bad endpoint or header with a clear error', async () => {
    expect((await runCli(['export', 'otlp'], env)).stderr).toContain('no collector endpoint')
    expect((await runCli(['export', 'otlp', '--endpoint', 'ftp://x'], env)).stderr).toContain('is not an http(s) URL')
    expect((await runCli(['export', 'otlp', '--endpoint', 'http://127.0.0.1:9', '--header', 'novalue'], env)).stderr).toContain('header "novalue" is not key=value')
  })
})
