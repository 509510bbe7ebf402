/**
 * bench/false-positive: latency of case-bundle creation (GET /v1/false-positives/cases/{seq}: ledger leaf,
 * stored call, live gate, redaction, canonical JSON) and of validate (POST /v1/false-positives/validate:
 * replacement parse and compile, the original call and every malicious fixture of the gate normalised and
 * evaluated, the policy edit planned), over HTTP against an in-process daemon, next to a plain gate check.
 * Run: node bench/false-positive/run.ts   (BENCH_N to change the number of calls per path)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { startSvcDaemon } from '../../cli/start-daemon.ts'
import { formatUs, summarise } from '../lib/stats.ts'

const N = Number(process.env.BENCH_N ?? 200)
const home = mkdtempSync(join(tmpdir(), 'svc-bench-fp-'))
const repo = join(home, 'repo')
mkdirSync(join(repo, '.git'), { recursive: true })
const daemon = await startSvcDaemon({ home: join(home, 'svc'), port: 0, env: { SVC_ALLOW_UNATTESTED: '1' }, log: pino({ level: 'silent' }) })
const post = (path: string, body: unknown) => fetch(`${daemon.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const sid = ((await (await post('/v1/sessions/create', { signer: 'unattested' })).json()) as { session_id: string }).session_id

async function time(fn: () => Promise<Response>): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint()
    const res = await fn()
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    samples.push(Number(process.hrtime.bigint() - t0))
  }
  return samples
}

const check = () => post('/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command: 'git reset --hard HEAD~1' }, cwd: repo })
const checks = await time(check)
const seq = ((await (await check()).json()) as { ledger_seq: number }).ledger_seq
const bundles = await time(() => fetch(`${daemon.url}/v1/false-positives/cases/${seq}`))
const bundle = await (await fetch(`${daemon.url}/v1/false-positives/cases/${seq}`)).json()
const replacement =
  "id: git.reset-hard.fp\nwhen: { all: [ { command: { program: git, subcommand: reset, args_any: [--hard, --merge, --keep] } }, { not: { command_regex: '^git reset --hard HEAD~1$' } } ] }\n"
const validations = await time(() => post('/v1/false-positives/validate', { bundle, replacement_yaml: replacement, target: 'repo' }))
console.log(formatUs('gate check (deny, for scale)', summarise(checks)))
console.log(formatUs('case bundle (GET cases/{seq})', summarise(bundles)))
console.log(formatUs('validate (git.reset-hard fixtures)', summarise(validations)))
await daemon.close()
rmSync(home, { recursive: true, force: true })
