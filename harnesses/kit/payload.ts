/**
 * Small pure helpers shared by harness plugins for reading untyped hook payloads: typed fields, absolute
 * paths, compact meta.
 */
import { createHash } from 'node:crypto'
import { isAbsolute, resolve } from 'node:path'
import type { ToolCall } from '../../core/index.ts'
import { HookPayloadError } from '../../harness-contract/index.ts'

/** A plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

/** A string field, or undefined when absent; throws when present with another type. */
export function optionalString(payload: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = payload[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new HookPayloadError(`field "${key}" must be a string, got ${typeof value}`)
  return value
}

/** A required non-empty string field. */
export function requireString(payload: Readonly<Record<string, unknown>>, key: string): string {
  const value = optionalString(payload, key)
  if (value === undefined || value === '') throw new HookPayloadError(`field "${key}" is required`)
  return value
}

/** An object field (`tool_input`); a JSON string holding an object is accepted (Cursor sends some as strings). */
export function objectField(payload: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> {
  const value = payload[key]
  if (value === undefined || value === null) return {}
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value)
      const record = asRecord(parsed)
      if (record) return record
    } catch {
      // fall through to the error below
    }
    throw new HookPayloadError(`field "${key}" must be an object or a JSON string holding one`)
  }
  const record = asRecord(value)
  if (!record) throw new HookPayloadError(`field "${key}" must be an object`)
  return record
}

/** Makes `path` absolute against `cwd` (harnesses may send relative paths). */
export function absolutePath(path: string, cwd: string | undefined): string {
  if (isAbsolute(path) || !cwd) return path
  return resolve(cwd, path)
}

/** Copies `input` and renames/absolutises a path-like key to `file_path`. */
export function withFilePath(input: Record<string, unknown>, keys: readonly string[], cwd: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input }
  for (const key of keys) {
    const value = input[key]
    if (typeof value === 'string' && value !== '') {
      out.file_path = absolutePath(value, cwd)
      return out
    }
  }
  return out
}

/** Drops undefined values (keeps ledger meta small and stable). */
export function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))
}

/** A tool use id for a harness that sends none: a digest of session, native tool and input links a post-tool event to its pre-tool one. */
export function derivedToolUseId(prefix: string, session: unknown, tool: string, input: unknown): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([session ?? '', tool, input ?? {}]))
    .digest('hex')
  return `${prefix}-${digest.slice(0, 24)}`
}

/**
 * The policy's call for a native one: the mapped tool and input, where it ran, the id linking its outcome, and in
 * `meta` the harness's session and (when renamed) its own tool name, plus any `meta` of the harness's own.
 */
export function mappedCall(
  source: string,
  nativeTool: string,
  mapped: { readonly tool: string; readonly input: Record<string, unknown> },
  at: { readonly cwd?: string | undefined; readonly toolUseId?: string | undefined; readonly session?: string | undefined; readonly meta?: Record<string, unknown> },
): Omit<ToolCall, 'sessionId'> {
  return {
    source,
    tool: mapped.tool,
    input: mapped.input,
    ...(at.cwd ? { cwd: at.cwd } : {}),
    ...(at.toolUseId ? { toolUseId: at.toolUseId } : {}),
    meta: compact({ harness_session_id: at.session, native_tool: nativeTool !== mapped.tool ? nativeTool : undefined, ...at.meta }),
  }
}
