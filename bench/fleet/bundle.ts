/**
 * bench/fleet bundle: what a signed policy bundle of N gates costs a daemon — verify (unpack, JWS, every
 * file hash, manifest), compile-before-activate, and activate (unpack to disk, switch the link, reload) — in
 * CPU time, and whether the check path cost changes when the same gates come from a bundle instead of a local
 * policy file (it should not: they are the same compiled gates in the same index).
 * Run: npm run bench:bundle   (BENCH_GATES=100,1000,5000  BENCH_CALLS)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { SHIPPED_POLICIES_DIR } from '../../cli/paths.ts'
import { allPlugins } from '../../cli/plugins.ts'
import { bundleSourcesAt, createEngine, type Engine } from '../../core/index.ts'
import { packBundle } from '../../plugins/policy-bundle/archive.ts'
import { activate, stageBundle } from '../../plugins/policy-bundle/disk.ts'
import { generateSigningKey, signFiles, trustRoot } from '../../plugins/policy-bundle/signature.ts'
import { verifyBundle } from '../../plugins/policy-bundle/verify.ts'
import { mixedCalls } from '../lib/calls.ts'
import { formatUs, summarise } from '../lib/stats.ts'

const SIZES = (process.env.BENCH_GATES ?? '100,1000,5000').split(',').map(Number)
const CALLS = Number(process.env.BENCH_CALLS ?? 5000)
const log = pino({ level: 'silent' })

function policyText(n: number): string {
  const gates = Array.from({ length: n }, (_, i) => `  - id: org.g${i}\n    when: { tool: Bash, command: { program: tool${i} } }\n    on_hit: deny\n`)
  return `version: 1\nmode: firewall\ngates:\n${gates.join('')}`
}

/** CPU milliseconds (user + system) of `run`, and its result. */
async function cpu<T>(run: () => Promise<T> | T): Promise<[number, T]> {
  const before = process.cpuUsage()
  const out = await run()
  const used = process.cpuUsage(before)
  return [(used.user + used.system) / 1000, out]
}

async function decideCost(engine: Engine, label: string): Promise<void> {
  const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
  const calls = mixedCalls(session.id, CALLS)
  for (const c of calls.slice(0, 500)) await engine.decide(c, session)
  const samples: number[] = []
  for (const c of calls) {
    const t = process.hrtime.bigint()
    await engine.decide(c, session)
    samples.push(Number(process.hrtime.bigint() - t))
  }
  console.log(`  ${formatUs(label, summarise(samples))}`)
}

console.log(`svc bench/fleet bundle — Node ${process.version}`)
const key = await generateSigningKey()
for (const n of SIZES) {
  const text = policyText(n)
  const files = new Map<string, Buffer>([
    ['.manifest', Buffer.from(JSON.stringify({ revision: 1, roots: ['svc'] }))],
    ['svc/daemon/org.yaml', Buffer.from(text)],
  ])
  files.set('.signatures.json', Buffer.from(await signFiles(files, key.privatePem)))
  const bytes = packBundle(files)
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-bundle-'))
  const local = mkdtempSync(join(tmpdir(), 'svc-bench-bundle-local-'))
  try {
    const engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log })
    const [verifyMs, bundle] = await cpu(() => verifyBundle(bytes, [trustRoot(key.publicPem)]))
    const [stageMs, dir] = await cpu(() => stageBundle(home, bundle, bytes))
    const [compileMs, problem] = await cpu(() => engine.policy.checkCompiles(bundleSourcesAt(dir), Date.now()))
    if (problem) throw new Error(problem.message)
    const [activateMs] = await cpu(async () => {
      activate(home, dir)
      await engine.policy.refreshInBackground()
    })
    console.log(
      `${n} gates (${(bytes.length / 1024).toFixed(1)} KiB packed): verify ${verifyMs.toFixed(1)} ms CPU, unpack to disk ${stageMs.toFixed(1)} ms, compile check ${compileMs.toFixed(1)} ms, activate+reload ${activateMs.toFixed(1)} ms`,
    )
    await decideCost(engine, `decide, ${n} gates from the bundle`)
    await engine.close()
    writeFileSync(join(local, 'policy.yaml'), text)
    const plain = await createEngine({ plugins: allPlugins, home: local, policiesDir: SHIPPED_POLICIES_DIR, log })
    await decideCost(plain, `decide, same ${n} gates in policy.yaml`)
    await plain.close()
  } finally {
    rmSync(home, { recursive: true, force: true })
    rmSync(local, { recursive: true, force: true })
  }
}
