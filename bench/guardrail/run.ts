/**
 * bench/guardrail: what a guardrail adds to a gate check. Three rows over the same engine and policy:
 * a plain check (a Bash command no guardrail gate matches: the hook is never called), an uncached guardrail check (a
 * real HTTP call to a loopback server speaking the OpenAI moderation format, every command new), and a
 * cached one (the same command again within cache_ttl). Decide only (no ledger), so the rows differ by
 * the guardrail alone. Run: npm run bench:guardrail
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { SHIPPED_POLICIES_DIR } from '../../cli/paths.ts'
import { allPlugins } from '../../cli/plugins.ts'
import { createEngine } from '../../core/index.ts'
import { startVendorServer } from '../../testing/vendor-server.ts'
import { formatUs, summarise } from '../lib/stats.ts'

const N = Number(process.env.BENCH_CALLS ?? 2000)
const categories = ['harassment', 'hate', 'self-harm', 'sexual', 'violence']
const server = await startVendorServer(() => ({
  json: {
    id: 'modr-b',
    model: 'omni-moderation-latest',
    results: [{ flagged: false, categories: Object.fromEntries(categories.map((c) => [c, false])), category_scores: Object.fromEntries(categories.map((c) => [c, 0.001])) }],
  },
}))
const home = mkdtempSync(join(tmpdir(), 'svc-bench-guard-'))
writeFileSync(
  join(home, 'policy.yaml'),
  `version: 1
gates:
  - id: guard.bash
    match: { tool: Bash, command_regex: '^echo guarded' }
    evaluate:
      - { kind: llm_guardrail, model: openai/omni-moderation-latest, prompt_field: input.command, on_threshold: [{ category: any, severity: ">= high", action: deny }], cache_ttl: 10m, max_latency: 2s }
`,
)
const engine = await createEngine({
  plugins: allPlugins,
  home,
  policiesDir: SHIPPED_POLICIES_DIR,
  log: pino({ level: 'silent' }),
  env: { OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: `${server.url}/v1` },
})
const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
const WARMUP = 200
const plain = (i: number) => guarded(`echo plain ${i}`)
const guarded = (command: string) => ({ sessionId: session.id, source: 'bench', tool: 'Bash', input: { command } })

async function time(label: string, make: (i: number) => Parameters<typeof engine.decide>[0], expectGuardrail: boolean): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await engine.decide(make(-1 - i), session) // warm-up
  const samples: number[] = []
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint()
    const { decision } = await engine.decide(make(i), session)
    samples.push(Number(process.hrtime.bigint() - t))
    if ((decision.guardrail !== undefined) !== expectGuardrail) throw new Error(`${label}: guardrail stage ${expectGuardrail ? 'missing' : 'present'}`)
  }
  const s = summarise(samples)
  console.log(formatUs(label, s))
  return s.p50
}

console.log(`svc bench/guardrail — ${N} calls per row, Node ${process.version}, provider: loopback OpenAI-format server`)
const base = await time('plain check (no guardrail gate)', plain, false)
const before = server.requests.length
const uncached = await time('guardrail, uncached (HTTP call)', (i) => guarded(`echo guarded ${i}`), true)
const calls = server.requests.length - before - WARMUP
await engine.decide(guarded('echo guarded, the same command'), session)
const beforeCached = server.requests.length
const cached = await time('guardrail, cached (cache_ttl hit)', () => guarded('echo guarded, the same command'), true)
if (server.requests.length !== beforeCached) throw new Error('cached row reached the provider')
console.log(`added p50: uncached +${(uncached - base).toFixed(1)}µs (${calls} provider requests), cached +${(cached - base).toFixed(1)}µs (0 provider requests)`)
await engine.close()
await server.close()
rmSync(home, { recursive: true, force: true })
