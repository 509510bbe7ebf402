/**
 * Runs a real program (a harness binary, the svc CLI) with exactly the given environment (plus the run's compile
 * cache, which the svc processes it starts share: child-env.ts), collecting stdout and stderr together, killed
 * after `timeoutMs` so a hung harness cannot hang the suite.
 */
import { spawn } from 'node:child_process'
import { compileCache } from './child-env.ts'

export function spawnBounded(cmd: string, args: readonly string[], opts: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<{ code: number; out: string }> {
  const child = spawn(cmd, [...args], { cwd: opts.cwd, env: { ...compileCache(), ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (c) => (out += c))
  child.stderr.on('data', (c) => (out += c))
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000)
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, out })
    }),
  )
}
