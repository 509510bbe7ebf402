/** Runs the real `svc` CLI (cli/svc.sh) in a child process and captures its output and exit code. */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const SVC = fileURLToPath(new URL('../../cli/svc.sh', import.meta.url))

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `svc <args>` with exactly `env` (plus PATH/HOME unless given). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(SVC, [...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
