/**
 * The managed file: what only the machine's administrator (root or MDM) sets — the bundle URL, the pinned
 * bundle-signing keys, how often to poll, and the floor (the lowest mode, and packs locked on). It is refused unless root owns it and nobody
 * else can write it, since a file the daemon's user could edit would let an agent unpin the keys.
 *
 * `/etc/svc/managed.json` is the place; `SVC_MANAGED_FILE` names another one only while that place holds
 * nothing (tests, a non-standard layout), so setting the variable cannot hide an installed managed file.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { lazyValidator, type Mode, type PackFloor } from '../../core/index.ts'
import { trustRoot, type TrustRoot } from './signature.ts'

export const DEFAULT_MANAGED_FILE = '/etc/svc/managed.json'

export interface BundleSettings {
  readonly url: string
  readonly roots: readonly TrustRoot[]
  readonly minDelayMs: number
  readonly maxDelayMs: number
  readonly timeoutMs: number
  readonly headers: Readonly<Record<string, string>>
}

export interface ManagedSettings {
  readonly path: string
  readonly bundle?: BundleSettings
  readonly floor: { readonly mode?: Mode; readonly packs?: Readonly<Record<string, PackFloor>> }
}

export class ManagedFileError extends Error {
  constructor(path: string, message: string) {
    super(`managed file ${path}: ${message}`)
    this.name = 'ManagedFileError'
  }
}

const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    bundle: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'keys'],
      properties: {
        url: { type: 'string', pattern: '^https?://' },
        keys: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
        polling: {
          type: 'object',
          additionalProperties: false,
          properties: { min_delay_seconds: { type: 'number', minimum: 0.01 }, max_delay_seconds: { type: 'number', minimum: 0.01 } },
        },
        timeout_seconds: { type: 'number', minimum: 0.1, maximum: 600 },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    floor: {
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: { enum: ['monitor', 'firewall'] },
        // Shipped packs locked on: as shipped (`on`) or with every gate at one severity; `svc policy packs` cannot turn them off.
        packs: { type: 'object', propertyNames: { pattern: '^[a-z0-9][a-z0-9-]*$' }, additionalProperties: { enum: ['on', 'deny', 'monitor'] } },
      },
    },
  },
} as const
const validate = lazyValidator(schema)

interface RawManaged {
  bundle?: { url: string; keys: string[]; polling?: { min_delay_seconds?: number; max_delay_seconds?: number }; timeout_seconds?: number; headers?: Record<string, string> }
  floor?: { mode?: Mode; packs?: Record<string, PackFloor> }
}

/** The managed file in force: the default place when it exists, else `SVC_MANAGED_FILE`, else none. */
export function managedFilePath(env: Readonly<Record<string, string | undefined>>, defaultPath = DEFAULT_MANAGED_FILE): string | undefined {
  if (existsSync(defaultPath)) return defaultPath
  const override = env.SVC_MANAGED_FILE
  return override !== undefined && override !== '' && existsSync(override) ? override : undefined
}

/** Reads and checks the managed file; undefined when there is none. Throws ManagedFileError naming what is wrong. */
export function readManaged(env: Readonly<Record<string, string | undefined>>): ManagedSettings | undefined {
  const path = managedFilePath(env)
  if (path === undefined) return undefined
  const st = statSync(path)
  if (!st.isFile()) throw new ManagedFileError(path, 'is not a regular file')
  if (st.uid !== 0) throw new ManagedFileError(path, `is owned by uid ${st.uid}, not root: a file its owner can edit cannot pin the keys svc trusts (chown root:root ${path})`)
  if ((st.mode & 0o022) !== 0) throw new ManagedFileError(path, `is writable by its group or by everyone (mode ${(st.mode & 0o777).toString(8)}); refused (chmod 644 ${path})`)
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new ManagedFileError(path, `is not JSON: ${(err as Error).message}`)
  }
  const check = validate()
  if (!check(raw)) {
    const e = check.errors?.[0]
    throw new ManagedFileError(path, `${e?.instancePath || '(top level)'} ${e?.message ?? 'is invalid'}`)
  }
  const managed = raw as RawManaged
  return { path, floor: managed.floor ?? {}, ...(managed.bundle ? { bundle: bundleSettings(path, managed.bundle) } : {}) }
}

function bundleSettings(path: string, raw: NonNullable<RawManaged['bundle']>): BundleSettings {
  const min = raw.polling?.min_delay_seconds ?? 60
  const max = raw.polling?.max_delay_seconds ?? Math.max(min, 120)
  if (max < min) throw new ManagedFileError(path, `/bundle/polling max_delay_seconds (${max}) is below min_delay_seconds (${min})`)
  let roots: TrustRoot[]
  try {
    roots = raw.keys.map(trustRoot)
  } catch (err) {
    throw new ManagedFileError(path, `/bundle/keys: ${(err as Error).message}`)
  }
  return { url: raw.url, roots, minDelayMs: min * 1000, maxDelayMs: max * 1000, timeoutMs: (raw.timeout_seconds ?? 30) * 1000, headers: raw.headers ?? {} }
}
