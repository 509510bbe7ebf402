/**
 * bench/hook: end-to-end latency of one PreToolUse decision through the installed shim (`bash -p svc-hook`:
 * /dev/tcp and two sha256sum, what Codex/Gemini/Cursor and Claude's command hook pay), through its POSIX
 * fallback (sh + curl + openssl, a machine without bash >= 5.1) and through a native HTTP hook (keep-alive
 * POST, what Claude Code's `type: "http"` costs), next to `sh -c true`, `bash -c true` and a bare curl POST
 * of the same payload, all against one real daemon process in the same run. With strace on PATH it also
 * counts the processes each shim path starts per call.
 * Run: npm run bench:hook   (BENCH_N to change the number of calls per path)
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import { installShim } from '../../plugins/installer/apply.ts'
import { unattestedSession, wrongLogins } from '../lib/operator.ts'
import { startDaemon } from '../lib/daemon.ts'
import { formatUs, summarise } from '../lib/stats.ts'

const N = Number(process.env.BENCH_N ?? 200)
const SHIM = join(PROJECT_ROOT, 'plugins/installer/svc-hook.sh')

function spawnOnce(cmd: string, args: string[], input: string): Promise<{ ns: number; out: string; code: number }> {
  const t0 = process.hrtime.bigint()
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'ignore'] })
  let out = ''
  child.stdout.on('data', (c) => (out += c))
  child.stdin.on('error', () => {})
  child.stdin.end(input)
  return new Promise((resolve) => child.on('close', (code) => resolve({ ns: Number(process.hrtime.bigint() - t0), out, code: code ?? -1 })))
}

/** Processes (the shim's own included) one call starts, counted by strace; undefined without strace. */
function processesPerCall(cmd: string, args: string[], input: string): string | undefined {
  const trace = join(home, 'strace.txt')
  const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=execve,clone,clone3,fork,vfork', '-o', trace, cmd, ...args], { input })
  if (r.error || r.status !== 0) return undefined
  const lines = readFileSync(trace, 'utf8').split('\n')
  const forks = lines.filter((l) => /\b(clone3?|v?fork)\(/.test(l) && !/CLONE_THREAD/.test(l)).length
  const execs = lines.filter((l) => /\bexecve\(/.test(l) && !/= -1 /.test(l)).map((l) => /execve\("([^"]+)"/.exec(l)?.[1]?.split('/').pop())
  return `${forks + 1} processes, ${execs.length} execs (${execs.join(', ')})`
}

async function measure(label: string, once: () => Promise<{ ns: number; check?: boolean }>): Promise<void> {
  for (let i = 0; i < 10; i++) await once() // warm-up
  const samples: number[] = []
  let bad = 0
  for (let i = 0; i < N; i++) {
    const r = await once()
    if (r.check === false) bad++
    samples.push(r.ns)
  }
  console.log(`${formatUs(label, summarise(samples))}${bad ? `  UNEXPECTED ANSWERS=${bad}` : ''}`)
}

const home = mkdtempSync(join(tmpdir(), 'svc-bench-hook-'))
const daemon = await startDaemon(home, 20000 + Math.floor(Math.random() * 20000))
try {
  await unattestedSession(daemon.url)
  const fixture = JSON.parse(readFileSync(join(PROJECT_ROOT, 'harnesses/claude-code/fixtures/pre-tool-use.captured.json'), 'utf8')) as Record<string, unknown>
  let n = 0
  // A fresh tool_use_id per call: duplicate deliveries are answered from memory, which would flatter the figures.
  const payload = () => JSON.stringify({ ...fixture, tool_input: { command: 'git status' }, tool_use_id: `toolu_bench_${n++}` })
  const hookUrl = `${daemon.url}/v1/hooks/claude-code/PreToolUse`
  // Warm the daemon (JIT, SQLite pages) so the first measured path is not charged for it.
  for (let i = 0; i < 200; i++) await (await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload() })).text()
  console.log(`svc bench/hook — ${N} sequential PreToolUse calls per path, Node ${process.version}, ${(await import('node:os')).cpus().length} CPUs`)
  await measure('sh -c true (bare spawn)', async () => spawnOnce('sh', ['-c', 'true'], ''))
  await measure('bash -c true (bare spawn)', async () => spawnOnce('bash', ['-c', 'true'], ''))
  await measure('bare curl POST to the hook route', async () => {
    const r = await spawnOnce('curl', ['-sS', '-X', 'POST', '-H', 'Content-Type: application/json', '--data-binary', '@-', hookUrl], payload())
    return { ns: r.ns, check: r.out === '{}' }
  })
  // The daemon made its hook key in its home; the installed shim beside it checks every answer's MAC with it.
  const shim = installShim(home)
  const shimArgs = ['claude-code', 'PreToolUse', `--url=${daemon.url}`]
  // The POSIX fallback as a machine without bash >= 5.1 runs it: the same file without its move to bash.
  const posix = join(home, 'bin', 'svc-hook-posix')
  writeFileSync(posix, readFileSync(SHIM, 'utf8').replace(/^\[ -n "\$\{BASH_VERSION:-\}" \].*$/m, ''))
  await measure('svc-hook shim (bash: /dev/tcp + sha256sum ×2)', async () => {
    const r = await spawnOnce(shim, shimArgs, payload())
    return { ns: r.ns, check: r.code === 0 && r.out === '{}' }
  })
  await measure('svc-hook POSIX fallback (sh + curl + openssl ×2)', async () => {
    const r = await spawnOnce('sh', [posix, ...shimArgs, `--key=${join(home, 'hook.key')}`], payload())
    return { ns: r.ns, check: r.code === 0 && r.out === '{}' }
  })
  await measure('native HTTP hook (keep-alive POST)', async () => {
    const t0 = process.hrtime.bigint()
    const res = await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload() })
    const text = await res.text()
    return { ns: Number(process.hrtime.bigint() - t0), check: text === '{}' }
  })
  // 8 clients sending wrong passwords at once: the throttle answers most with 429, and the few scrypt
  // hashes run in the libuv pool, so hook latency should match the line above.
  const flood = wrongLogins(daemon.url, 8)
  await measure('native HTTP hook, 8 wrong-login loops', async () => {
    const t0 = process.hrtime.bigint()
    const res = await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload() })
    const text = await res.text()
    return { ns: Number(process.hrtime.bigint() - t0), check: text === '{}' }
  })
  console.log(`wrong logins answered meanwhile, by status: ${JSON.stringify(await flood.stop())}`)
  for (const [label, cmd, args] of [
    ['svc-hook shim', shim, shimArgs],
    ['svc-hook POSIX fallback', 'sh', [posix, ...shimArgs, `--key=${join(home, 'hook.key')}`]],
  ] as const) {
    const count = processesPerCall(cmd, [...args], payload())
    if (count) console.log(`${label.padEnd(34)} ${count} per call`)
  }
  const rssKb = Number(readFileSync(`/proc/${daemon.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0)
  console.log(`daemon RSS after the run: ${(rssKb / 1024).toFixed(1)} MiB`)
} finally {
  daemon.child.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 300))
  rmSync(home, { recursive: true, force: true })
}
