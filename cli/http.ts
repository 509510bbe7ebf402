/**
 * The CLI's client for the daemon API: JSON in, JSON out, problem+json turned into a CliError that
 * quotes the daemon's detail.
 */
import { CliError, type CliIo } from './io.ts'

export interface RequestOptions {
  readonly method?: string
  readonly body?: unknown
  readonly token?: string
  readonly timeoutMs?: number
  /** Aborts the request early (a long poll when the caller stops). */
  readonly signal?: AbortSignal
}

export async function callDaemon<T>(baseUrl: string, path: string, opts: RequestOptions = {}): Promise<T> {
  let res: Response
  try {
    res = await fetch(`${baseUrl}${path}`, {
      method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs ?? 10_000)]) : AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    })
  } catch (err) {
    throw new CliError(`cannot reach the svc daemon at ${baseUrl} (${(err as Error).message}); start it with \`svc daemon\` or set --url / SVC_URL`)
  }
  const text = await res.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    throw new CliError(`the daemon at ${baseUrl} answered ${res.status} with a body that is not JSON`)
  }
  if (!res.ok) {
    const detail = (body as { detail?: string } | undefined)?.detail ?? res.statusText
    throw new CliError(`${path}: ${detail} (HTTP ${res.status})`)
  }
  return body as T
}

/**
 * Logs in with the operator password unless SVC_TOKEN is set: the given one (--password-stdin), else
 * SVC_ADMIN_PASSWORD, else typed at a hidden prompt when a person is at the terminal.
 */
export async function operatorToken(baseUrl: string, io: CliIo, password?: string, offersStdin = false): Promise<string> {
  const { env } = io
  if (env.SVC_TOKEN) return env.SVC_TOKEN
  const pw = password ?? (env.SVC_ADMIN_PASSWORD || (io.interactive ? await io.ask('operator password: ', { hidden: true }) : undefined))
  // Only ways this command takes: --password-stdin is named only where the command has it.
  if (!pw)
    throw new CliError(
      `this needs operator rights and there is no terminal to ask for the password: set SVC_ADMIN_PASSWORD (or SVC_TOKEN)${offersStdin ? ', or pass --password-stdin' : ', or run it in a terminal'} (no password yet? \`svc auth set-password\`)`,
    )
  const { token } = await callDaemon<{ token: string }>(baseUrl, '/v1/auth/login', { body: { password: pw } })
  return token
}
