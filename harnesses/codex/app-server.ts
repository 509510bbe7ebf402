/**
 * A short-lived client of Codex CLI's app server (`codex app-server`: JSON-RPC 2.0, one message per line on
 * stdio), the interface Codex's own `/hooks` screen uses to list hooks and record their trust. Every call
 * is bounded: the server is killed when the work is done, when it exits, or after `timeoutMs`.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { createInterface } from 'node:readline'

/** A hook as `hooks/list` reports it (the fields svc reads). */
export interface CodexHookMetadata {
  readonly key: string
  readonly eventName: string
  readonly handlerType: string
  readonly command?: string
  readonly sourcePath: string
  readonly source: string
  readonly enabled: boolean
  readonly isManaged: boolean
  readonly currentHash: string
  readonly trustStatus: 'managed' | 'untrusted' | 'trusted' | 'modified'
}

export interface CodexAppServer {
  listHooks(cwd: string): Promise<{ hooks: CodexHookMetadata[]; warnings: string[]; errors: string[] }>
  /** Upserts tables under `keyPath` of the user's config.toml; returns the file Codex wrote. */
  upsertConfig(keyPath: string, value: Record<string, unknown>): Promise<string>
  /** Replaces the table at `keyPath` of the user's config.toml with `value`. */
  replaceConfig(keyPath: string, value: Record<string, unknown>): Promise<string>
}

/** The `codex` executable on `PATH` (or `$SVC_CODEX_BIN`), or undefined. */
export function findCodex(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const candidates = env.SVC_CODEX_BIN
    ? [env.SVC_CODEX_BIN]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, 'codex'))
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return undefined
}

/** Runs `work` against a fresh app server started from `bin` with `env`; always stops the server. */
export async function withCodexAppServer<T>(
  bin: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  work: (server: CodexAppServer) => Promise<T>,
  timeoutMs = 20_000,
): Promise<T> {
  // Codex needs its own variables (HOME, CODEX_HOME, PATH), never svc's secrets (operator password, token).
  const codexEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('SVC_')))
  const child = spawn(bin, ['app-server'], { cwd, env: codexEnv, stdio: ['pipe', 'pipe', 'pipe'] })
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  let stderr = ''
  let failure: Error | undefined
  const failAll = (err: Error) => {
    failure ??= err
    for (const p of pending.values()) p.reject(failure)
    pending.clear()
  }
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)))
  child.on('error', (err) => failAll(new Error(`could not start ${bin} app-server: ${err.message}`)))
  child.on('exit', (code) => failAll(new Error(`${bin} app-server exited (${code}) before answering${stderr.trim() ? `: ${stderr.trim().split('\n').pop()}` : ''}`)))
  child.stdin.on('error', () => undefined)
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: { id?: number; result?: unknown; error?: { message?: string } }
    try {
      message = JSON.parse(line)
    } catch {
      return
    }
    const waiter = message.id === undefined ? undefined : pending.get(message.id)
    if (!waiter) return // notifications
    pending.delete(message.id!)
    if (message.error) waiter.reject(new Error(`codex app-server: ${message.error.message ?? JSON.stringify(message.error)}`))
    else waiter.resolve(message.result)
  })
  let next = 0
  const call = <R>(method: string, params: unknown): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      if (failure) return reject(failure)
      const id = ++next
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
  const timer = setTimeout(() => failAll(new Error(`codex app-server did not answer within ${timeoutMs} ms`)), timeoutMs)
  try {
    await call('initialize', { clientInfo: { name: 'svc', title: 'svc installer', version: '1' }, capabilities: null })
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'initialized' })}\n`)
    return await work({
      async listHooks(dir) {
        const res = await call<{ data: { hooks: CodexHookMetadata[]; warnings: string[]; errors: { path: string; message: string }[] }[] }>('hooks/list', { cwds: [dir] })
        const entry = res.data[0] ?? { hooks: [], warnings: [], errors: [] }
        return { hooks: entry.hooks, warnings: entry.warnings, errors: entry.errors.map((e) => `${e.path}: ${e.message}`) }
      },
      async upsertConfig(keyPath, value) {
        const res = await call<{ filePath: string }>('config/batchWrite', { edits: [{ keyPath, value, mergeStrategy: 'upsert' }], reloadUserConfig: true })
        return res.filePath
      },
      async replaceConfig(keyPath, value) {
        const res = await call<{ filePath: string }>('config/batchWrite', { edits: [{ keyPath, value, mergeStrategy: 'replace' }], reloadUserConfig: true })
        return res.filePath
      },
    })
  } finally {
    clearTimeout(timer)
    child.removeAllListeners('exit')
    child.kill('SIGKILL')
  }
}
