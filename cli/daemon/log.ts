/**
 * The daemon's logger: pino JSON lines when stdout is not a terminal (journald, launchd files, docker logs,
 * pipes: machine-readable, no ANSI), one readable line per event on a terminal (time, level, message, then
 * the fields as key=value; colour only there, and never with NO_COLOR).
 */
import pino, { type DestinationStream, type Logger } from 'pino'

const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }
const COLOURS: Readonly<Record<number, string>> = { 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[41;37m' }
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'v'])

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)
  if (v instanceof Object && 'message' in v && 'stack' in v) return JSON.stringify((v as { message: unknown }).message)
  return JSON.stringify(v)
}

/** One pino record as a terminal line: `12:00:01 INFO  svc daemon listening address=http://127.0.0.1:7878`. */
export function humanLine(record: Record<string, unknown>, colour: boolean): string {
  const level = typeof record.level === 'number' ? record.level : 30
  const time = new Date(typeof record.time === 'number' ? record.time : Date.now()).toTimeString().slice(0, 8)
  const label = (LEVELS[level] ?? String(level)).padEnd(5)
  const fields = Object.entries(record)
    .filter(([k]) => !OMIT.has(k))
    .map(([k, v]) => `${k}=${value(k === 'err' && v instanceof Object ? (v as { message?: unknown }).message : v)}`)
  const tint = colour ? COLOURS[level] : undefined
  return `${time} ${tint ? `${tint}${label}\x1b[0m` : label} ${String(record.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}\n`
}

function humanStream(out: NodeJS.WriteStream, colour: boolean): DestinationStream {
  return {
    write(line: string) {
      try {
        out.write(humanLine(JSON.parse(line) as Record<string, unknown>, colour))
      } catch {
        out.write(line)
      }
    },
  }
}

/** The daemon logger for `env` (SVC_LOG_LEVEL, SVC_LOG_FORMAT=json|pretty to override the terminal check, NO_COLOR). */
export function daemonLogger(env: NodeJS.ProcessEnv, out: NodeJS.WriteStream = process.stdout): Logger {
  const options = { name: 'svc', level: env.SVC_LOG_LEVEL ?? 'info' }
  const pretty = env.SVC_LOG_FORMAT === 'pretty' || (env.SVC_LOG_FORMAT !== 'json' && out.isTTY === true)
  if (!pretty) return pino(options, out)
  return pino(options, humanStream(out, out.isTTY === true && !env.NO_COLOR))
}
