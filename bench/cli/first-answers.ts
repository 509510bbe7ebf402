/**
 * What a user waits for after `svc daemon` (re)starts: spawn to the first GET /v1/health answer (a home whose
 * compile cache is warm, as on every start after the first), then the first PreToolUse call of every kind (a
 * plain command, inline code of each grammar, file tools, an MCP tool) and the same call again, in milliseconds.
 * The calls need a session, and an unattested one needs an operator login: they run in a second start with the
 * bench password set, so that the first start's figure has no password to hash.
 * Targets (issue 32): start to first answer <= 500 ms on a quiet machine, every first call <= 5 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { BENCH_PASSWORD, unattestedSession } from '../lib/operator.ts'

const KINDS: readonly [string, string, Record<string, unknown>][] = [
  ['Bash: git status', 'Bash', { command: 'git status' }],
  ['Bash: python3 -c', 'Bash', { command: `python3 -c 'import os; print(os.getcwd())'` }],
  ['Bash: node -e', 'Bash', { command: `node -e 'console.log(process.cwd())'` }],
  ['Bash: tsx -e', 'Bash', { command: `tsx -e 'const x: number = 1; console.log(x)'` }],
  ['Bash: ruby -e', 'Bash', { command: `ruby -e 'puts Dir.pwd'` }],
  ['Read', 'Read', { file_path: '/home/u/work/README.md' }],
  ['Write', 'Write', { file_path: '/home/u/work/notes.txt', content: 'hello\n' }],
  ['Edit', 'Edit', { file_path: '/home/u/work/src/a.ts', old_string: 'a', new_string: 'b' }],
  ['MCP tool', 'mcp__github__get_issue', { owner: 'o', repo: 'r', issue_number: 1 }],
]

/** Milliseconds and the answer of one PreToolUse call through the hook route. */
async function call(url: string, tool: string, input: Record<string, unknown>, n: number): Promise<[number, string]> {
  const body = JSON.stringify({
    session_id: 'bench-first',
    transcript_path: '/home/u/.claude/projects/x.jsonl',
    cwd: '/home/u/work',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    tool_use_id: `toolu_first_${n}`,
  })
  const t0 = performance.now()
  const res = await fetch(`${url}/v1/hooks/claude-code/PreToolUse`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const text = await res.text()
  const decision = text === '{}' ? 'allow' : (/"permissionDecision":"(\w+)"/.exec(text)?.[1] ?? text.slice(0, 60))
  return [performance.now() - t0, decision]
}

/** `svc daemon` started with `env`; resolves with it and the milliseconds to its first GET /v1/health answer. */
async function start(svc: string, url: string, env: NodeJS.ProcessEnv): Promise<{ daemon: ChildProcess; ms: number }> {
  const t0 = performance.now()
  const daemon = spawn(svc, ['daemon', '--port', new URL(url).port], { env, stdio: 'ignore' })
  for (;;) {
    if (daemon.exitCode !== null) throw new Error(`daemon exited ${daemon.exitCode}`)
    if ((await fetch(`${url}/v1/health`).catch(() => undefined))?.ok) return { daemon, ms: performance.now() - t0 }
    await new Promise((r) => setTimeout(r, 2))
  }
}

async function stop(daemon: ChildProcess): Promise<void> {
  daemon.kill('SIGTERM')
  if (daemon.exitCode === null) await once(daemon, 'exit')
}

/** Prints start-to-first-answer, then (a second start) every kind's first and second call. */
export async function firstAnswers(svc: string, port: number, env: NodeJS.ProcessEnv): Promise<void> {
  const url = `http://127.0.0.1:${port}`
  const first = await start(svc, url, env)
  await stop(first.daemon)
  console.log(`daemon start to first answer (warm compile cache)  ${first.ms.toFixed(0).padStart(5)} ms   target <= 500${first.ms <= 500 ? '' : '   over target'}`)
  const { daemon } = await start(svc, url, { ...env, SVC_ADMIN_PASSWORD: BENCH_PASSWORD })
  try {
    await unattestedSession(url)
    let n = 0
    for (const [label, tool, input] of KINDS) {
      const [once1, decision] = await call(url, tool, input, n++)
      const [again] = await call(url, tool, input, n++)
      const f = (v: number) => v.toFixed(1).padStart(6)
      console.log(`first ${label.padEnd(20)} ${f(once1)} ms   again ${f(again)} ms   ${decision.padEnd(5)} target <= 5${once1 <= 5 ? '' : '   over target'}`)
    }
  } finally {
    await stop(daemon)
  }
}
