/**
 * bench/ledger: signed, durable appends/s (group commit, WAL + synchronous=FULL, native Ed25519) at several
 * concurrencies; inclusion and consistency proof time at 100k and 1M leaves; whole-ledger verification rate
 * (node:crypto and noble); and the RSS of a real daemon process after a check load over HTTP.
 * Run: npm run bench:ledger   (BENCH_BIG=1000000 sets the large tree, BENCH_APPENDS=20000 the append runs;
 * BENCH_ONLY=verify builds only the 100k tree and times its verification, BENCH_REPEAT=3 repeats each verify run)
 */
import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { unlockHostKey } from '../../cli/signer/long-lived-key.ts'
import { mintSession } from '../../cli/signer/mint.ts'
import { verifyNative } from '../../core/ledger/ed25519.ts'
import { SqliteLedger } from '../../core/ledger/ledger.ts'
import { leafSignerFor } from '../../core/ledger/leaf.ts'
import { LedgerStore } from '../../core/ledger/store.ts'
import { verifyLedger, verifyLedgerDatabase } from '../../ledger-verify/index.ts'
import { certifiedSession, decisionDraft, sessionDraft } from '../../testing/ledger-fixtures.ts'
import { formatUs, mib, summarise } from '../lib/stats.ts'

const APPENDS = Number(process.env.BENCH_APPENDS ?? 20_000)
const BIG = Number(process.env.BENCH_BIG ?? 1_000_000)
const ONLY_VERIFY = process.env.BENCH_ONLY === 'verify'
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1)
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ledger-'))
const session = certifiedSession('software')
const sign = leafSignerFor(session.key)

async function fill(ledger: SqliteLedger, count: number, concurrency: number, signed: boolean): Promise<number> {
  let next = 0
  const t = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++
        if (signed) await ledger.append(decisionDraft(session.id, 'software', i), sign)
        else await ledger.append(decisionDraft(session.id, 'unattested', i))
      }
    }),
  )
  return count / ((performance.now() - t) / 1000)
}

function timeEach(count: number, fn: () => void): ReturnType<typeof summarise> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint()
    fn()
    samples.push(Number(process.hrtime.bigint() - t))
  }
  return summarise(samples)
}

console.log(`bench/ledger on Node ${process.version}; every append is signed (node:crypto Ed25519) and durable (WAL, synchronous=FULL) before it resolves\n`)

// 1. Signed, durable appends per second, and how long the event loop stalls meanwhile: commits on the caller's
//    thread (inline, the behaviour before the writer thread) against the writer thread, in the same run.
for (const writer of ONLY_VERIFY ? [] : (['inline', 'thread'] as const)) {
  const ledger = new SqliteLedger({ path: join(dir, `appends-${writer}.db`), writer })
  await ledger.append(sessionDraft(session), sign)
  for (const concurrency of [1, 8, 64, 256]) {
    const delay = monitorEventLoopDelay({ resolution: 1 })
    delay.enable()
    const rate = await fill(ledger, APPENDS, concurrency, true)
    delay.disable()
    console.log(
      `appends, ${writer.padEnd(6)} writer, concurrency ${String(concurrency).padEnd(4)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} signed durable appends/s; event-loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(2)} ms, max ${(delay.max / 1e6).toFixed(2)} ms`,
    )
  }
  await ledger.close()
}

// 2. Proof time at 100k and BIG leaves (100k signed; the big tree unsigned to build faster: proofs do not read signatures).
for (const [size, signed] of ONLY_VERIFY
  ? ([[100_000, true]] as const)
  : ([
      [100_000, true],
      [BIG, false],
    ] as const)) {
  const path = join(dir, `tree-${size}.db`)
  const ledger = new SqliteLedger(path)
  if (signed) await ledger.append(sessionDraft(session), sign)
  const t = performance.now()
  await fill(ledger, size - ledger.size(), 512, signed)
  const built = (performance.now() - t) / 1000
  const rnd = (n: number) => Math.floor(Math.random() * n)
  const inclusion = timeEach(2_000, () => void ledger.inclusionProof(rnd(size)))
  const historical = timeEach(2_000, () => {
    const n = 1 + rnd(size)
    ledger.inclusionProof(rnd(n), n)
  })
  const consistency = timeEach(2_000, () => {
    const n = 1 + rnd(size)
    ledger.consistencyProof(1 + rnd(n), n)
  })
  console.log(
    `\ntree of ${size.toLocaleString('en-US')} leaves (built in ${built.toFixed(1)} s, ${Math.round(size / built).toLocaleString('en-US')}/s), db ${mib(statSync(path).size)}`,
  )
  console.log(formatUs('inclusion proof, current tree', inclusion))
  console.log(formatUs('inclusion proof, random old size', historical))
  console.log(formatUs('consistency proof, random sizes', consistency))
  await ledger.close()
  if (signed) {
    const trusted = [{ public_key: session.hostKey.publicKey.toString('base64'), signer: 'software' as const }]
    const store = new LedgerStore(path, { readOnly: true })
    const leaves = [...store.allLeaves()]
    let t0 = performance.now()
    const single = verifyLedger({ leaves, checkpoints: store.checkpoints(), trustedHostKeys: trusted, verify: verifyNative, storedNode: store.findNode })
    let seconds = (performance.now() - t0) / 1000
    store.close()
    console.log(
      `whole-ledger verify, one thread, in memory (before) ${single.treeSize.toLocaleString('en-US')} leaves in ${seconds.toFixed(1)} s = ${Math.round(single.treeSize / seconds).toLocaleString('en-US')} leaves/s, ok=${single.ok}`,
    )
    for (const [threads, verifier] of [
      [1, 'native'],
      [2, 'native'],
      [2, 'fast'],
    ] as const) {
      for (let run = 0; run < REPEAT; run++) {
        t0 = performance.now()
        const cpu0 = process.cpuUsage()
        const r = await verifyLedgerDatabase({ path, trustedHostKeys: trusted, threads, verifier })
        seconds = (performance.now() - t0) / 1000
        const cpu = process.cpuUsage(cpu0)
        const cpuSeconds = (cpu.user + cpu.system) / 1e6
        console.log(
          `whole-ledger verify, ${threads} thread(s), ${verifier === 'fast' ? 'libsodium  ' : 'node:crypto'}, streamed  ${r.treeSize.toLocaleString('en-US')} leaves in ${seconds.toFixed(1)} s = ${Math.round(r.treeSize / seconds).toLocaleString('en-US')} leaves/s (CPU ${cpuSeconds.toFixed(1)} s, ${Math.round((cpuSeconds * 1e6) / r.treeSize)} µs/leaf; load ${loadavg()[0]!.toFixed(2)}), ok=${r.ok}`,
        )
      }
    }
  }
}
if (ONLY_VERIFY) {
  rmSync(dir, { recursive: true, force: true })
  process.exit(0)
}

// 3. RSS of a real daemon process: idle over a ledger of BIG leaves, then idle over an empty one and after a check load over HTTP.
async function startDaemon(home: string) {
  const env = { PATH: process.env.PATH, HOME: home, SVC_HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_ADMIN_PASSWORD: 'bench-password-123' }
  const child = spawn(fileURLToPath(new URL('../../cli/svc.sh', import.meta.url)), ['daemon', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)
      if (m) resolve(m[1]!)
    })
  })
  await new Promise((r) => setTimeout(r, 2000))
  return { child, url, env, rss: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024 }
}
{
  const bigHome = join(dir, 'big-home')
  mkdirSync(bigHome)
  copyFileSync(join(dir, `tree-${BIG}.db`), join(bigHome, 'ledger.db'))
  const big = await startDaemon(bigHome)
  console.log(`\ndaemon process over a ledger of ${BIG.toLocaleString('en-US')} leaves: RSS idle ${mib(big.rss())}`)
  big.child.kill('SIGTERM')
  await new Promise((r) => big.child.once('exit', r))
}
{
  const home = join(dir, 'daemon-home')
  const { child, url, env, rss } = await startDaemon(home)
  const idle = rss()
  const created = await fetch(`${url}/v1/sessions/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(mintSession(unlockHostKey('software', { home, env }))),
  })
  const { session_id } = (await created.json()) as { session_id: string }
  const CHECKS = 10_000
  let next = 0
  const t = performance.now()
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < CHECKS) {
        const i = next++
        await fetch(`${url}/v1/gates/check`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ session_id, source: 'claude-code', tool: 'Bash', input: { command: `echo ${i}` } }),
        }).then((r) => r.arrayBuffer())
      }
    }),
  )
  const rate = CHECKS / ((performance.now() - t) / 1000)
  console.log(
    `\ndaemon process: RSS idle ${mib(idle)}, after ${CHECKS.toLocaleString('en-US')} signed checks over HTTP (32 concurrent, ${Math.round(rate).toLocaleString('en-US')} checks/s) ${mib(rss())}`,
  )
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
}

rmSync(dir, { recursive: true, force: true })
