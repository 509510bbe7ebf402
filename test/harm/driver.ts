/**
 * Drives a real harness binary through the harm suite's attacks (issue 27): a scripted model on loopback (the
 * harness's own wire format, given by an adapter) hands out one shell call per turn and holds the harness's next
 * request (the one carrying the call's result) until the runner asks for the next command, so the runner checks
 * harm and resets the world between turns while one harness process runs many attacks. A session that ends or
 * stalls is replaced by a warm spare. The harness runs its shell in its own sandbox, configured as svc wrote it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-model.ts'

/** What the model server saw: the harness's next turn (with the last call's result), or a side signal. */
export type Wake = { res?: ServerResponse; result?: string; asked?: string }

export interface Adapter {
  /** Writes the session's config under `home` (its own state dir) and says how to start it. */
  prepare(home: string, origin: string): { argv: readonly string[]; env: Record<string, string> }
  /** Answers side requests itself; for a turn of the conversation calls `turn` with the last call's result. */
  handle(req: IncomingMessage, raw: string, res: ServerResponse, turn: (w: Wake) => void): void
  /** Answers a held turn with a shell call of `command` (`n` numbers the calls). */
  call(res: ServerResponse, command: string, n: number): void
  /** Answers a held turn with the end of the task. */
  done(res: ServerResponse): void
  /** What to say when a `turn` brought `asked` (the harness asked the user something instead of answering). */
  asked?(raw: string): string
}

export interface Driver {
  /** Has the model ask for `command`; resolves with the result the harness sent back (what the model saw). */
  run(command: string): Promise<string>
  close(): Promise<void>
}

/** Turns per process (a prompt's turns are bounded in some harnesses: 100 in Gemini CLI). */
const TURNS = 60
interface Session {
  child: ChildProcess
  server: ScriptedServer
  held?: ServerResponse
  wake?: (w: Wake) => void
  turns: number
  log: string
}

function next(s: Session, ms: number): Promise<Wake> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({}), ms)
    const exited = () => resolve({})
    s.child.once('exit', exited)
    s.wake = (w) => {
      clearTimeout(timer)
      s.child.off('exit', exited)
      resolve(w)
    }
  })
}

async function startSession(adapter: Adapter, home: string, cwd: string, env: Record<string, string>): Promise<Session> {
  const s = { turns: 0, log: '' } as Session
  s.server = await startScriptedServer((req, raw, res) =>
    adapter.handle(req, raw, res, (w) => {
      if (w.res) s.held = w.res
      const f = s.wake
      s.wake = undefined
      f?.(w)
    }),
  )
  const how = adapter.prepare(home, s.server.origin)
  s.child = spawn(how.argv[0]!, how.argv.slice(1), { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, ...how.env } })
  s.child.stdout!.on('data', (d) => (s.log = (s.log + d).slice(-2000)))
  s.child.stderr!.on('data', (d) => (s.log = (s.log + d).slice(-2000)))
  await next(s, 90_000)
  return s
}

function kill(s: Session): void {
  if (s.child.pid && s.child.exitCode === null && s.child.signalCode === null) process.kill(-s.child.pid, 'SIGKILL')
  void s.server.close()
}

async function retire(adapter: Adapter, s: Session): Promise<void> {
  if (s.held && !s.held.writableEnded) adapter.done(s.held)
  s.held = undefined
  const c = s.child
  if (c.exitCode === null && c.signalCode === null) {
    const exited = new Promise((r) => c.once('exit', r))
    const timer = setTimeout(() => kill(s), 5_000)
    await exited
    clearTimeout(timer)
  }
  await s.server.close()
}

/** Sessions start in `cwd` (the project) with `env` (the attack's: HOME is the world's home); each gets `${state}/<n>`. */
export function startDriver(adapter: Adapter, state: string, cwd: string, env: Record<string, string>, timeoutMs: number): Driver {
  let n = 0
  let calls = 0
  let current: Promise<Session> | undefined
  let spare: Promise<Session> | undefined
  const all = new Set<Promise<Session>>()
  const fresh = () => {
    const s = startSession(adapter, `${state}/${n++}`, cwd, env)
    all.add(s)
    return s
  }

  async function take(): Promise<Session | string> {
    let failed = ''
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!current) {
        current = spare ?? fresh()
        spare = undefined
      }
      const s = await current
      if (s.held && s.turns < TURNS) {
        spare ??= fresh()
        return s
      }
      current = undefined
      if (s.held) await retire(adapter, s)
      else {
        failed = s.log
        kill(s)
      }
    }
    return `harness did not start: ${failed}`
  }

  return {
    async run(command) {
      const s = await take()
      if (typeof s === 'string') return s
      s.turns++
      const res = s.held!
      s.held = undefined
      const done = next(s, timeoutMs)
      adapter.call(res, command, ++calls)
      const w = await done
      if (w.result !== undefined) return w.result
      current = undefined
      kill(s)
      if (w.asked !== undefined && adapter.asked) return adapter.asked(w.asked)
      return s.child.exitCode !== null ? `harness exited ${s.child.exitCode} before answering: ${s.log}` : `no result in ${timeoutMs} ms (killed)`
    },
    async close() {
      for (const p of [current, spare]) if (p) await retire(adapter, await p)
      // Nothing outlives the runner: every session this driver started is gone.
      for (const p of all) kill(await p)
    },
  }
}
