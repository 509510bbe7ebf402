/**
 * Runs the real `svc` CLI. `runCli` calls `main(argv, io)` in this process with exactly the given
 * environment (the CLI reads nothing else: io.env, io.readStdin), which is what a test of a command's
 * behaviour needs; `runCliProcess` spawns cli/svc.sh where the process boundary is the point (the shim,
 * the daemon, signals, crash recovery, exit codes as a shell sees them). `svc daemon` always runs as a process.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { main } from '../../cli/main.ts'

const SVC = fileURLToPath(new URL('../../cli/svc.sh', import.meta.url))

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `svc <args>` in-process with exactly `env` (plus PATH unless given); `stdin` is what the command reads. */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<CliRun> {
  if (args[0] === 'daemon') return runCliProcess(args, env, stdin)
  let stdout = ''
  let stderr = ''
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`)
  // Piped stdin, as a shell gives it: prompts take one line each, readStdin the rest.
  let rest = stdin
  const code = await main(args, {
    out: (text) => void (stdout += line(text)),
    err: (text) => void (stderr += line(text)),
    env: { PATH: process.env.PATH, ...env },
    readStdin: async () => {
      const all = rest
      rest = ''
      return all
    },
    ask: async () => {
      if (rest === '') return undefined
      const nl = rest.indexOf('\n')
      const first = nl < 0 ? rest : rest.slice(0, nl)
      rest = nl < 0 ? '' : rest.slice(nl + 1)
      return first.replace(/\r$/, '')
    },
    interactive: false,
  })
  return { code, stdout, stderr }
}

/**
 * Runs `svc <args>` as a child process (cli/svc.sh) with exactly `env` (plus PATH unless given): no compile cache
 * unless the test passes one, as a user's process starts (test/compile-cache-home.e2e.test.ts relies on it).
 */
export function runCliProcess(args: readonly string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(SVC, [...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(stdin)
  })
}
