/**
 * A fleet of three real daemons (ephemeral ports, their own $SVC_HOME each) exports to one OTLP receiver that
 * archives what it accepted as OTLP/JSON lines, like a collector's file exporter. `svc fleet verify` accepts
 * the archive, then names the machine whose leaf was rewritten, whose log was truncated, and — after one
 * machine's state is cloned and both copies go on deciding — the machine whose log forked.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess, type DaemonProcess } from './helpers/daemon-process.ts'
import { startOtlpReceiver, type OtlpReceiver } from './helpers/otlp-receiver.ts'
import { runCli } from './helpers/run-cli.ts'
import { startWitnessStandIn, type WitnessStandIn } from './helpers/witness-standin.ts'
import { waitFor } from './helpers/wait.ts'

vi.setConfig({ testTimeout: 420_000 }) // four real daemons, a witness and the real CLI on a shared 2-core machine

const root = tempDir('svc-fleet-')
afterAll(() => rmSync(root, { recursive: true, force: true }))
const archive = join(root, 'archive.jsonl')

const envOf = (home: string) => ({
  PATH: process.env.PATH,
  HOME: home,
  SVC_HOME: home,
  SVC_ALLOW_SOFTWARE_SIGNER: '1',
  SVC_ADMIN_PASSWORD: 'correct horse battery',
  SVC_LOG_LEVEL: 'info',
})

interface Machine {
  readonly home: string
  daemon: DaemonProcess
  origin: string
}

const policy = join(root, 'witness-policy.txt')
const strictPolicy = join(root, 'strict-policy.txt')

async function start(home: string, receiver: OtlpReceiver, witness?: WitnessStandIn): Promise<DaemonProcess> {
  const daemon = await startDaemonProcess({
    ...envOf(home),
    SVC_OTLP_ENDPOINT: receiver.url,
    SVC_OTLP_INTERVAL: '100ms',
    SVC_WITNESS_POLICY: policy,
    SVC_WITNESS_INTERVAL: '200ms',
    SVC_CHECKPOINT_INTERVAL: '200ms',
  })
  // Enrolment: the host's log vkey registered with the witness (witnessctl add-key).
  if (witness) witness.addLog((await runCli(['ledger', 'log-key'], envOf(home))).stdout.trim())
  return daemon
}

/** Starts daemons side by side; when one fails, stops those that started before rethrowing (none is left running). */
async function startAll(starts: readonly Promise<DaemonProcess>[]): Promise<DaemonProcess[]> {
  const settled = await Promise.allSettled(starts)
  const failed = settled.find((s) => s.status === 'rejected')
  if (!failed) return settled.map((s) => (s as PromiseFulfilledResult<DaemonProcess>).value)
  await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)))
  throw failed.reason
}

/** Mints a session and makes `n` decisions; returns the ledger size afterwards. */
async function decide(m: Machine, n: number, tag: string): Promise<number> {
  const created = await m.daemon.post('/v1/sessions/create', mintSession(unlockHostKey('software', { home: m.home, env: envOf(m.home) })))
  expect(created.status).toBe(201)
  let seq = 0
  for (let i = 0; i < n; i++) {
    const r = await m.daemon.post('/v1/gates/check', {
      session_id: created.body.session_id,
      source: 'claude-code',
      tool: 'Bash',
      input: { command: i % 4 === 3 ? 'rm -rf /' : `echo ${tag}-${i}` },
    })
    expect(r.status).toBe(200)
    seq = r.body.ledger_seq
  }
  const rootDoc = (await (await fetch(`${m.daemon.url}/v1/ledger/root`)).json()) as { origin?: string }
  if (rootDoc.origin) m.origin = rootDoc.origin
  return seq + 1
}

/** Waits until the receiver holds a checkpoint (or cosignature) of `size` leaves from `origin` (checkpoints are signed every 200 ms here: SVC_CHECKPOINT_INTERVAL). */
async function shipped(receiver: OtlpReceiver, origin: string, size: number, event = 'svc.checkpoint'): Promise<void> {
  await waitFor(
    () => receiver.records.some((r) => r.resource['svc.ledger.origin'] === origin && r.eventName === event && Number(r.attributes['svc.ledger.tree_size']) >= size),
    `${event} of ${size} leaves from ${origin}`,
    60_000,
  )
}

const trustArgs = (machines: readonly Machine[]) => machines.flatMap((m) => ['--trusted-keys', join(m.home, 'trusted-host-keys.json')])

/** Rewrites the archive's JSON lines through `edit` into a new file. */
function tampered(name: string, edit: (records: any[], origin: string) => any[]): string {
  const out = join(root, name)
  const lines = readFileSync(archive, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const doc = JSON.parse(line)
      for (const rl of doc.resourceLogs) {
        const origin = rl.resource.attributes.find((a: any) => a.key === 'svc.ledger.origin').value.stringValue
        for (const sl of rl.scopeLogs) sl.logRecords = edit(sl.logRecords, origin)
      }
      return JSON.stringify(doc)
    })
  writeFileSync(out, `${lines.join('\n')}\n`)
  return out
}
const seqOf = (r: any) => Number(r.attributes.find((a: any) => a.key === 'svc.ledger.seq')?.value.intValue ?? -1)

describe('svc fleet verify', () => {
  it('accepts a fleet archive, then catches a rewritten leaf, a truncated log and a forked checkpoint', async () => {
    const receiver = await startOtlpReceiver(archive)
    const witness = await startWitnessStandIn('witness.example/fleet')
    const absent = await startWitnessStandIn('witness.example/absent')
    writeFileSync(policy, `witness w1 ${witness.vkey} ${witness.url}\nquorum w1\n`)
    writeFileSync(strictPolicy, `witness w1 ${witness.vkey}\nwitness w2 ${absent.vkey}\ngroup both all w1 w2\nquorum both\n`)
    const machines: Machine[] = []
    try {
      // The machines are independent: start them, decide and wait for their checkpoints side by side.
      const homes = ['a', 'b', 'c'].map((name) => join(root, name))
      for (const [i, daemon] of (await startAll(homes.map((home) => start(home, receiver, witness)))).entries()) machines.push({ home: homes[i]!, daemon, origin: '' })
      await Promise.all(
        machines.map(async (m, i) => {
          const size = await decide(m, 6 + i, `m${i}`)
          expect(m.origin).toMatch(/^svc\.local\//)
          await shipped(receiver, m.origin, size)
          await shipped(receiver, m.origin, size, 'svc.witness_cosignature')
        }),
      )
      const [a, b, c] = machines as [Machine, Machine, Machine]
      // b grows again after its first checkpoint shipped, so it has checkpoints of two sizes.
      const bSize = await decide(b, 2, 'm1-again')
      await shipped(receiver, b.origin, bSize)
      await shipped(receiver, b.origin, bSize, 'svc.witness_cosignature')

      const ok = await runCli(['fleet', 'verify', archive, ...trustArgs(machines), '--witness-policy', policy], {})
      expect(ok.stderr).toBe('')
      expect(ok.stdout).toContain('fleet verified: 3 machine(s) OK')
      for (const m of machines) expect(ok.stdout).toMatch(new RegExp(`✓ ${m.origin.replace('.', '\\.')} .*witnessed [1-9]`))
      // A quorum that needs a witness no machine ever reached: every machine is unwitnessed.
      const strict = await runCli(['fleet', 'verify', archive, ...trustArgs(machines), '--witness-policy', strictPolicy], {})
      expect(strict.code).toBe(1)
      for (const m of machines) expect(strict.stderr).toContain(`${m.origin} unwitnessed`)

      // A rewritten leaf on machine b (a deny turned into an allow): its bytes no longer hash into the signed tree.
      let edits = 0
      const rewritten = tampered('rewritten.jsonl', (records, origin) =>
        records.map((r) => {
          if (origin !== b.origin || edits > 0 || !String(r.body.stringValue).includes('"verdict":"deny"')) return r
          edits++
          return { ...r, body: { stringValue: r.body.stringValue.replace('"verdict":"deny"', '"verdict":"allow"') } }
        }),
      )
      expect(edits).toBe(1)
      const caught = await runCli(['fleet', 'verify', rewritten, ...trustArgs(machines)], {})
      expect(caught.code).toBe(1)
      expect(caught.stderr).toContain(`fleet verification FAILED: ${b.origin} invalid`)
      expect(caught.stdout).toContain(`✓ ${a.origin}`)

      // Machine c's last leaves withheld while its signed checkpoint still covers them.
      const cSize =
        Math.max(
          ...receiver.records
            .filter((r) => r.resource['svc.ledger.origin'] === c.origin && r.attributes['svc.ledger.seq'] !== undefined)
            .map((r) => Number(r.attributes['svc.ledger.seq'])),
        ) + 1
      const truncated = tampered('truncated.jsonl', (records, origin) => records.filter((r) => origin !== c.origin || seqOf(r) < cSize - 3))
      const cut = await runCli(['fleet', 'verify', truncated, ...trustArgs(machines)], {})
      expect(cut.code).toBe(1)
      expect(cut.stderr).toContain(`${c.origin} truncated`)
      expect(cut.stderr).toContain(`a signed checkpoint covers`)

      // Machine b's first checkpoint held back and shipped after the later ones: its log went back.
      let held: any
      const reordered = tampered('went-back.jsonl', (records, origin) =>
        records.filter((r) => {
          if (held || origin !== b.origin || r.eventName !== 'svc.checkpoint') return true
          held = r
          return false
        }),
      )
      const resource = JSON.parse(readFileSync(archive, 'utf8').split('\n')[0]!).resourceLogs[0].resource
      resource.attributes = resource.attributes.map((a: any) => (a.key === 'svc.ledger.origin' ? { ...a, value: { stringValue: b.origin } } : a))
      writeFileSync(reordered, `${JSON.stringify({ resourceLogs: [{ resource, scopeLogs: [{ scope: { name: 'svc.ledger' }, logRecords: [held] }] }] })}\n`, { flag: 'a' })
      const back = await runCli(['fleet', 'verify', reordered, ...trustArgs(machines), '--json'], {})
      expect(back.code).toBe(1)
      const report = JSON.parse(back.stdout) as { ok: boolean; machines: { origin: string; verdict: string }[] }
      expect(report.ok).toBe(false)
      expect(report.machines.find((m) => m.origin === b.origin)!.verdict).toBe('went_back')
      expect(report.machines.find((m) => m.origin === a.origin)!.verdict).toBe('ok')

      // The archive as a directory of files (a collector's file exporter rotating, awss3 objects).
      const dir = join(root, 'archive-dir')
      mkdirSync(dir)
      const lines = readFileSync(archive, 'utf8').trim().split('\n')
      lines.forEach((line, i) => {
        writeFileSync(join(dir, `part-${String(i).padStart(5, '0')}.jsonl`), `${line}\n`)
      })
      expect((await runCli(['fleet', 'verify', dir, ...trustArgs(machines)], {})).stdout).toContain('fleet verified: 3 machine(s) OK')

      // Machine a's state cloned (a restored backup, a copied VM): both copies go on deciding and shipping.
      await a.daemon.stop()
      const cloneHome = join(root, 'a-clone')
      execFileSync('cp', ['-a', a.home, cloneHome]) // modes kept: the signer directory must stay private
      const [cloneDaemon, original] = await startAll([start(cloneHome, receiver), start(a.home, receiver)])
      const clone: Machine = { home: cloneHome, daemon: cloneDaemon!, origin: a.origin }
      a.daemon = original!
      machines.push(clone)
      const [sizeA, sizeClone] = await Promise.all([decide(a, 4, 'original'), decide(clone, 5, 'clone')])
      expect(clone.origin).toBe(a.origin)
      await shipped(receiver, a.origin, Math.max(sizeA, sizeClone))
      // Both copies have shipped: some seq arrived twice with different bytes.
      await waitFor(
        () => {
          const bodies = new Map<number, Set<string>>()
          for (const r of receiver.records) {
            if (r.resource['svc.ledger.origin'] !== a.origin || r.attributes['svc.ledger.seq'] === undefined) continue
            const seq = Number(r.attributes['svc.ledger.seq'])
            bodies.set(seq, (bodies.get(seq) ?? new Set()).add(r.body))
          }
          return [...bodies.values()].some((b) => b.size > 1)
        },
        'both histories shipped',
        60_000,
      )
      const forked = await runCli(['fleet', 'verify', archive, ...trustArgs(machines)], {})
      expect(forked.code).toBe(1)
      expect(forked.stderr).toContain(`fleet verification FAILED: ${a.origin} forked`)
      expect(forked.stderr).toMatch(/two checkpoints of size \d+ with different roots|was shipped twice with different leaves/)
      expect(forked.stdout).toContain(`✓ ${b.origin}`)
    } finally {
      // Independent processes, each a second or more to exit: stopped side by side.
      await Promise.all(machines.map((m) => m.daemon.stop()))
      await receiver.close()
      await witness.close()
      await absent.close()
    }
  })
})
