/**
 * `.manifest` (OPA's bundle manifest, svc's fields): `{"revision": <integer>, "roots": ["svc"],
 * "metadata": {"expires": "<RFC 3339>", "min_svc": "<x.y.z>"}}`. The revision only ever goes up.
 */
import { lazyValidator } from '../../core/index.ts'
import { BundleError } from './layout.ts'
import { ROOT } from './layout.ts'

export interface BundleManifest {
  readonly revision: number
  readonly roots: readonly string[]
  readonly metadata: { readonly expires?: string; readonly min_svc?: string }
}

const schema = {
  type: 'object',
  required: ['revision', 'roots'],
  additionalProperties: false,
  properties: {
    revision: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    roots: { type: 'array', items: { const: ROOT }, minItems: 1, maxItems: 1 },
    metadata: {
      type: 'object',
      additionalProperties: true,
      properties: { expires: { type: 'string', minLength: 1 }, min_svc: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' } },
    },
  },
} as const
const validate = lazyValidator(schema)

/** Parses and checks a manifest; throws BundleError naming the bad field. */
export function parseManifest(bytes: Uint8Array | undefined): BundleManifest {
  if (!bytes) throw new BundleError('bundle has no .manifest')
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'))
  } catch (err) {
    throw new BundleError(`.manifest is not JSON: ${(err as Error).message}`)
  }
  const check = validate()
  if (!check(value)) {
    const e = check.errors?.[0]
    throw new BundleError(
      `.manifest${e?.instancePath ?? ''} ${e?.message ?? 'is invalid'} (expected {"revision": <integer ≥ 1>, "roots": ["svc"], "metadata": {"expires"?, "min_svc"?}})`,
    )
  }
  const manifest = value as { revision: number; roots: string[]; metadata?: BundleManifest['metadata'] }
  const expires = manifest.metadata?.expires
  if (expires !== undefined && Number.isNaN(Date.parse(expires)))
    throw new BundleError(`.manifest metadata.expires "${expires}" is not a date (RFC 3339, e.g. 2026-12-31T00:00:00Z)`)
  return { revision: manifest.revision, roots: manifest.roots, metadata: manifest.metadata ?? {} }
}

/** Compares dotted versions numerically: negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number)
  const pb = b.split('.').map(Number)
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}
